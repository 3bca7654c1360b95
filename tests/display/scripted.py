"""Scripted table snapshots and a backend that serves them, for the display tests.

`ScriptedBackend` is a real `DisplayBackend`: it serves whatever snapshot the
test sets, answers commands the way the runtime does (refused unless allowed
now, with a message) and records every command it receives. The snapshots are
written out by hand, in the contract of docs/display.md, so a test can say
exactly what the page must show.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Any

from table_runtime.game import citations

# Commands that are not in the snapshot's "allowed" list but the dealer may always try.
ALWAYS_ACCEPTED = frozenset({"MANUAL_CARD", "DISCARD", "ACK_ALARM", "SEAT", "SEAT_CLEAR"})


@dataclass(frozen=True, slots=True)
class ReceivedCommand:
    name: str
    args: dict[str, Any]
    role: str


class ScriptedBackend:
    """Serves the snapshot the test sets; records commands; recall returns the scripted rounds."""

    def __init__(self, snapshot: dict[str, Any], rounds: list[dict[str, Any]] | None = None) -> None:
        self.current = snapshot
        self.rounds = rounds or []
        self.commands: list[ReceivedCommand] = []
        self.received: asyncio.Queue[ReceivedCommand] = asyncio.Queue()
        self.gate: asyncio.Event | None = None  # when set by a test, commands wait for it to open
        self.alarms: list[tuple[str, str, str]] = []  # (kind, message, rule) of security alarms

    def snapshot(self) -> dict[str, Any]:
        return self.current

    async def command(self, name: str, args: dict[str, Any], *, role: str) -> dict[str, Any]:
        received = ReceivedCommand(name, dict(args), role)
        self.commands.append(received)
        self.received.put_nowait(received)
        if self.gate is not None:
            async with asyncio.timeout(10):
                await self.gate.wait()
        if name == "ACK_ALARM" and role != "supervisor" and any(
            a["id"] == args.get("id") and a.get("supervisor") for a in self.current.get("alarms", [])
        ):
            return {"ok": False, "message": f"alarm {args.get('id')} needs the supervisor PIN"}
        if name not in ALWAYS_ACCEPTED and name not in self.current["allowed"]:
            # In the runtime's words (a round's refusal alarm, table_runtime/game/round.py).
            return {"ok": False, "message": f"{name} refused: the round is in phase {self.current['phase']}"}
        return {"ok": True, "message": f"{name} done"}

    def recall(self, last: int) -> list[dict[str, Any]]:
        return self.rounds[-last:]

    async def security_alarm(self, kind: str, message: str, rule: str) -> None:
        self.alarms.append((kind, message, rule))

    def ratings(self) -> dict[str, Any]:
        return {"sessions": [], "flags": []}  # a scripted table rates nobody

    async def next_command(self, timeout: float = 5.0) -> ReceivedCommand:
        async with asyncio.timeout(timeout):
            return await self.received.get()


def hand(
    cards: list[str],
    total: int,
    stakes_cents: int,
    *,
    soft: bool = False,
    status: str = "playing",
    doubled: bool = False,
    from_split: bool = False,
) -> dict[str, Any]:
    return {
        "cards": cards,
        "total": total,
        "soft": soft,
        "stakes_cents": stakes_cents,
        "doubled": doubled,
        "from_split": from_split,
        "status": status,
    }


def box(
    number: int,
    *,
    owner: str | None = None,
    seated_cents: int = 0,
    behind: list[dict[str, Any]] | None = None,
    hands: list[dict[str, Any]] | None = None,
    insurance_cents: int = 0,
    insurance_offered: bool = False,
    payouts: list[dict[str, Any]] | None = None,
    net_cents: int | None = None,
) -> dict[str, Any]:
    return {
        "box": number,
        "owner": owner,
        "seated_cents": seated_cents,
        "behind": behind or [],
        "insurance_cents": insurance_cents,
        "insurance_offered": insurance_offered,
        "hands": hands or [],
        "payouts": payouts or [],
        "net_cents": net_cents,
    }


def payout(hand: int, owner: str, kind: str, staked_cents: int, outcome: str, net_cents: int) -> dict[str, Any]:
    return {
        "hand": hand,
        "owner": owner,
        "kind": kind,
        "staked_cents": staked_cents,
        "outcome": outcome,
        "net_cents": net_cents,
    }


def table(
    *,
    seq: int,
    round_number: int,
    phase: str,
    boxes: list[dict[str, Any]],
    bank: dict[str, Any],
    turn: dict[str, int] | None = None,
    allowed: list[str] | None = None,
    next_card: str = "none",
    held_cards: list[str] | None = None,
    cards_left: int = 255,
    cut_card_reached: bool = False,
    alarms: list[dict[str, Any]] | None = None,
    recovered: bool = False,
    devices: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A whole snapshot; boxes not given are empty."""
    given = {b["box"]: b for b in boxes}
    return {
        "schema_version": 1,
        "table_id": "T1",
        "seq": seq,
        "round": round_number,
        "phase": phase,
        "profile": "fr-casino",
        "limits": {"min_cents": 500, "max_cents": 500000},
        "turn": turn,
        "allowed": allowed or [],
        "next_card": next_card,
        "bank": bank,
        "boxes": [given.get(n, box(n)) for n in range(1, 8)],
        "held_cards": held_cards or [],
        "shoe": {
            "shoe_id": "S-3",
            "cards_dealt": 312 - cards_left,
            "cards_left": cards_left,
            "burns_left": 0,
            "cut_card_reached": cut_card_reached,
            "online": True,
        },
        "alarms": alarms or [],
        "recovered": recovered,
        "devices": devices or {"shoe": "online", "chips": "online", "broker": "online"},
    }


def bank_hand(cards: list[str], total: int, *, soft: bool = False, must_draw: bool = False) -> dict[str, Any]:
    return {
        "cards": cards,
        "total": total,
        "soft": soft,
        "blackjack": False,
        "busted": total > 21,
        "must_draw": must_draw,
    }


def playing(seq: int = 1234) -> dict[str, Any]:
    """Round 17, box 3 to play on a soft 17 (A+6), box 5 split in two, bank shows an ace."""
    return table(
        seq=seq,
        round_number=17,
        phase="playing",
        turn={"box": 3, "hand": 0},
        allowed=["NEXT", "DOUBLE", "UNDO", "VOID"],
        next_card="box3.hand0",
        bank=bank_hand(["AS"], 11, soft=True),
        boxes=[
            box(1, owner="seat1", seated_cents=1000, hands=[hand(["TS", "7H"], 17, 1000, status="stood")]),
            box(
                3,
                owner="seat3",
                seated_cents=1000,
                behind=[{"owner": "b1", "cents": 500}],
                insurance_cents=500,
                hands=[hand(["AD", "6C"], 17, 1500, soft=True)],
            ),
            box(
                5,
                owner="seat5",
                seated_cents=2000,
                hands=[
                    hand(["8S", "3H"], 11, 2000, status="waiting", from_split=True),
                    hand(["8D", "KC"], 18, 2000, status="waiting", from_split=True),
                ],
            ),
        ],
    )


def settlement(seq: int = 1260) -> dict[str, Any]:
    """Round 17 settled: bank 17 (A+6+K); box 3 wins with 21, box 5 wins one split hand and loses the other."""
    return table(
        seq=seq,
        round_number=17,
        phase="settlement",
        allowed=["CONFIRM", "VOID"],
        bank=bank_hand(["AS", "6H", "KD"], 17),
        cut_card_reached=True,
        cards_left=70,
        boxes=[
            box(
                1,
                owner="seat1",
                seated_cents=1000,
                hands=[hand(["TS", "7H"], 17, 1000, status="stood")],
                payouts=[payout(0, "seat1", "original", 1000, "push", 0)],
                net_cents=0,
            ),
            box(
                3,
                owner="seat3",
                seated_cents=1000,
                behind=[{"owner": "b1", "cents": 500}],
                insurance_cents=500,
                hands=[hand(["AD", "6C", "4S"], 21, 1500, status="twenty_one")],
                payouts=[
                    payout(0, "seat3", "original", 1000, "win", 1000),
                    payout(0, "b1", "original", 500, "win", 500),
                    payout(0, "seat3", "insurance", 500, "insurance_lose", -500),
                ],
                net_cents=1000,
            ),
            box(
                5,
                owner="seat5",
                seated_cents=2000,
                hands=[
                    hand(["8S", "3H", "9C"], 20, 2000, status="stood", from_split=True),
                    hand(["8D", "KC"], 18, 2000, status="stood", from_split=True),
                ],
                payouts=[
                    payout(0, "seat5", "original", 2000, "win", 2000),
                    payout(1, "seat5", "split", 2000, "win", 2000),
                ],
                net_cents=4000,
            ),
            box(
                6,
                owner="seat6",
                seated_cents=1500,
                hands=[hand(["AH", "KH"], 21, 1500, soft=True, status="blackjack")],
                payouts=[payout(0, "seat6", "original", 1500, "blackjack", 2250)],
                net_cents=2250,
            ),
        ],
    )


def alarm(
    alarm_id: int, kind: str, message: str, *, box_number: int | None, amounts: dict[str, int],
    supervisor: bool = False, rule: str = citations.PAYOUT,
) -> dict[str, Any]:
    return {
        "id": alarm_id,
        "seq": 1200 + alarm_id,
        "kind": kind,
        "box": box_number,
        "message": message,
        "rule": rule,
        "amounts": amounts,
        "acknowledged": False,
        "supervisor": supervisor,
    }


def with_alarms(snapshot: dict[str, Any], *alarms: dict[str, Any]) -> dict[str, Any]:
    changed = copy.deepcopy(snapshot)
    changed["alarms"] = list(alarms)
    changed["seq"] += 1
    return changed


def recalled_round(round_number: int, first_seq: int) -> dict[str, Any]:
    """A settled round as the journal recalls it: three steps, each with its snapshot."""
    deal = table(
        seq=first_seq + 1,
        round_number=round_number,
        phase="dealing",
        next_card="bank",
        bank=bank_hand([], 0),
        boxes=[box(2, owner="seat2", seated_cents=2500, hands=[hand(["9C"], 9, 2500, status="waiting")])],
    )
    play = table(
        seq=first_seq + 2,
        round_number=round_number,
        phase="playing",
        turn={"box": 2, "hand": 0},
        next_card="box2.hand0",
        bank=bank_hand(["5D"], 5, must_draw=True),
        boxes=[box(2, owner="seat2", seated_cents=2500, hands=[hand(["9C", "2H"], 11, 2500)])],
    )
    settle = table(
        seq=first_seq + 3,
        round_number=round_number,
        phase="settlement",
        bank=bank_hand(["5D", "TC", "8H"], 23),
        boxes=[
            box(
                2,
                owner="seat2",
                seated_cents=2500,
                hands=[hand(["9C", "2H", "TS"], 21, 5000, status="doubled", doubled=True)],
                payouts=[
                    payout(0, "seat2", "original", 2500, "win", 2500),
                    payout(0, "seat2", "double", 2500, "win", 2500),
                ],
                net_cents=5000,
            )
        ],
    )
    steps = [  # (snapshot, input type, the events it produced, recall.py's English line)
        (deal, "CardDrawn", [{"type": "CardAssigned", "card": "9C", "target": "box2.hand0"}], "card 9C to box2.hand0"),
        (play, "Double", [{"type": "HandDoubled", "box": 2, "hand": 0, "added_cents": 2500, "behind_declined": []},
                          {"type": "CardAssigned", "card": "2H", "target": "box2.hand0"}],
         "box2.hand0 doubles (+25.00 €); card 2H to box2.hand0"),
        (settle, "CardDrawn", [{"type": "CardAssigned", "card": "8H", "target": "bank"},
                               {"type": "RoundSettled", "round": round_number, "bank_total": 23,
                                "bank_blackjack": False, "payouts": []}], "card 8H to bank; settled: bank 23"),
    ]
    return {
        "round": round_number,
        "table_id": "T1",
        "shoe_id": "S-3",
        "started_seq": first_seq,
        "closed_seq": first_seq + 3,
        "result": "settled",
        "steps": [
            {"seq": snap["seq"], "ts": 1764412345.0 + 40 * index, "type": kind, "events": events, "text": text,
             "snapshot": snap}
            for index, (snap, kind, events, text) in enumerate(steps)
        ],
        "payouts": [
            {"box": 2, **p} for p in settle["boxes"][1]["payouts"]
        ],
        "alarms": [],
    }


def being_paid(seq: int = 1270) -> dict[str, Any]:
    """`settlement()` while the dealer pays: box 3's seated zone is right (10.00 + 10.00), its player
    behind 5.00 € short, its insurance collected; box 1 (push) right; box 5 not paid yet (its stake
    of two split hands, 40.00 €, is still there); box 6 paid 5.00 € too much; chips on unplayed box 7."""
    changed = settlement(seq)
    changed["payout_check"] = {
        "box1": {"due_cents": 1000, "seen_cents": 1000},
        "box3": {"due_cents": 2000, "seen_cents": 2000},
        "box3.behind": {"due_cents": 1000, "seen_cents": 500},
        "box3.insurance": {"due_cents": 0, "seen_cents": 0},
        "box5": {"due_cents": 8000, "seen_cents": 4000},
        "box6": {"due_cents": 3750, "seen_cents": 4250},
        "box7": {"due_cents": 0, "seen_cents": 2500},
    }
    return changed
