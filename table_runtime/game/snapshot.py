"""The table as plain data (docs/display.md): what the display, the feed and recall show.

Two tables with equal snapshots are in the same state; replay tests compare
snapshots of the live table and of the replayed one.
"""

from __future__ import annotations

from typing import Any

from table_runtime.game.events import Payout
from table_runtime.game.hand import Hand
from table_runtime.game.hyper import bank_result
from table_runtime.game.hyper_settlement import field_view, is_hyper
from table_runtime.game.phases import CLOSED, INSURANCE, SETTLEMENT
from table_runtime.game.round import Round
from table_runtime.game.table import Table


def payout_dict(payout: Payout) -> dict[str, Any]:
    return {"box": payout.box, "hand": payout.hand, "owner": payout.owner, "kind": payout.kind,
            "staked_cents": payout.staked_cents, "outcome": payout.outcome, "net_cents": payout.net_cents,
            "note": payout.note}


def _hand_dict(hand: Hand, charlie: bool) -> dict[str, Any]:
    return {"cards": [card.code for card in hand.cards], "total": hand.total, "soft": hand.soft,
            "stakes_cents": hand.stake_total(), "doubled": hand.doubled, "from_split": hand.from_split,
            "status": hand.status(charlie),
            "stakes": [{"owner": s.owner, "cents": s.cents, "kind": s.kind} for s in hand.stakes]}


def _boxes(round_: Round) -> list[dict[str, Any]]:
    charlie = round_.rules.ten_card_charlie
    up = round_.bank_up_card
    settled = bool(round_.payouts)
    boxes = []
    for box in round_.boxes:
        payouts = [payout_dict(p) for p in round_.payouts if p.box == box.number and not is_hyper(p)]
        boxes.append({
            "box": box.number, "owner": box.bet.owner, "seated_cents": box.bet.seated_cents,
            "behind": [{"owner": b.owner, "cents": b.cents} for b in box.bet.behind],
            "insurance_cents": box.insurance,
            "insurance_offered": round_.phase is INSURANCE and up is not None and up.is_ace,
            "hands": [_hand_dict(hand, charlie) for hand in box.hands],
            "payouts": payouts,
            "net_cents": sum(p["net_cents"] for p in payouts) if settled else None,
        })
    return boxes


HELD_SHOWN = 52  # held cards the snapshot lists at most (a card storm holds thousands): the others are counted


def table_snapshot(table: Table) -> dict[str, Any]:
    """The game part of the snapshot contract (the runtime adds table id, seq, alarms, devices)."""
    round_ = table.round
    shoe = table.shoe
    snapshot: dict[str, Any] = {
        "round": 0 if round_ is None else round_.number,
        "phase": table.phase,
        "profile": table.rules.profile,
        "limits": {"min_cents": table.limits.min_bet_cents, "max_cents": table.limits.max_bet_cents},
        "turn": None, "allowed": table.allowed(), "next_card": table.next_card_target,
        "bank": {"cards": [], "total": 0, "soft": False, "blackjack": False, "busted": False, "must_draw": False},
        "boxes": [],
        "held_cards": table.held_cards.codes[:HELD_SHOWN],
        "held_cards_hidden": max(0, len(table.held_cards.codes) - HELD_SHOWN),
        "shoe": {"shoe_id": shoe.shoe_id, "cards_dealt": shoe.dealt, "cards_left": shoe.cards_left,
                 "burns_left": shoe.burns_left, "cut_card_reached": shoe.cut_card_reached, "loaded": shoe.loaded},
    }
    if round_ is not None:
        turn = round_.turn
        bank = round_.bank
        snapshot.update({
            "turn": None if turn is None else {"box": turn[0], "hand": turn[1]},
            "bank": {"cards": [card.code for card in bank.cards], "total": bank.total, "soft": bank.soft,
                     "blackjack": bank.blackjack, "busted": bank.busted, "must_draw": round_.bank_must_draw},
            "boxes": _boxes(round_),
        })
    if table.rules.hyper_blackjack:  # 55-4 6°: the field, its stakes, the bank's final result
        snapshot["hyper"] = _hyper(round_)
    return snapshot


def _hyper(round_: Round | None) -> dict[str, Any]:
    if round_ is None:
        return field_view((), (), None)
    bank = round_.bank
    final = round_.phase in (SETTLEMENT, CLOSED) and bank.total >= 17 and len(bank.cards) >= 2
    return field_view(round_.hyper_bets, round_.payouts, bank_result(bank.total, len(bank.cards)) if final else None)
