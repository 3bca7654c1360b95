"""One scripted snapshot per phase of a round, for the layout and language tests.

The players are named the way the runtime names them when it only knows their zones (`box3`,
`box3.behind`, docs/display.md), and each phase is crowded on purpose: behind bets on several boxes,
insurance, a split, a five-card hand, a payout check with wrong zones, alarms of every family.
"""

from __future__ import annotations

import copy
from typing import Any

from table_runtime.game import citations
from tests.display.scripted import alarm, bank_hand, box, hand, payout, recalled_round, table, with_alarms


def _seat(number: int, cents: int, behind_cents: int = 0, **fields: Any) -> dict[str, Any]:
    behind = [{"owner": f"box{number}.behind", "cents": behind_cents}] if behind_cents else []
    return box(number, owner=f"box{number}", seated_cents=cents, behind=behind, **fields)


def betting() -> dict[str, Any]:
    """Bets on six boxes, two of them with a player behind; nothing dealt yet."""
    return table(
        seq=3001, round_number=18, phase="betting", allowed=[], next_card="none", bank=bank_hand([], 0),
        boxes=[_seat(1, 2500), _seat(2, 1000, 500), _seat(3, 123400), _seat(4, 500), _seat(5, 5000, 2500),
               _seat(7, 10000)],
    )


def insurance() -> dict[str, Any]:
    """The bank shows an ace: insurance offered on every box, taken on boxes 2 and 5."""
    boxes = [
        _seat(1, 2500, hands=[hand(["TS", "7H"], 17, 2500, status="waiting")], insurance_offered=True),
        _seat(2, 1000, 500, hands=[hand(["AD", "6C"], 17, 1500, soft=True, status="waiting")], insurance_cents=500),
        _seat(3, 123400, hands=[hand(["9C", "9D"], 18, 123400, status="waiting")], insurance_offered=True),
        _seat(5, 5000, 2500, hands=[hand(["KH", "QC"], 20, 7500, status="waiting")], insurance_cents=2500),
        _seat(7, 10000, hands=[hand(["5S", "6S"], 11, 10000, status="waiting")], insurance_offered=True),
    ]
    return table(seq=3010, round_number=18, phase="insurance", allowed=["CONFIRM", "VOID"], next_card="none",
                 bank=bank_hand(["AS"], 11, soft=True), boxes=boxes)


def split() -> dict[str, Any]:
    """Box 2 split in two with its player behind, box 5 drawing a fifth card, box 7 doubled."""
    boxes = [
        _seat(1, 2500, hands=[hand(["TS", "7H"], 17, 2500, status="stood")]),
        _seat(2, 1000, 500, hands=[
            hand(["8S", "3H", "TD"], 21, 1500, status="twenty_one", from_split=True),
            hand(["8D", "2C"], 10, 1500, status="playing", from_split=True)]),
        _seat(3, 123400, hands=[hand(["9C", "9D"], 18, 123400, status="stood")]),
        _seat(5, 5000, 2500, hands=[hand(["2H", "3C", "AD", "2S", "4D"], 12, 7500, soft=False, status="waiting")]),
        _seat(7, 10000, hands=[hand(["5S", "6S", "KD"], 21, 20000, status="doubled", doubled=True)]),
    ]
    return table(seq=3020, round_number=18, phase="playing", turn={"box": 2, "hand": 1},
                 allowed=["NEXT", "DOUBLE", "SPLIT", "UNDO", "VOID"], next_card="box2.hand1",
                 bank=bank_hand(["6H"], 6), boxes=boxes)


def settlement_checked() -> dict[str, Any]:
    """Settlement with behind bets on boxes 2 and 5, insurance, a split, and the chips being checked: box 2's
    player behind is paid 5.00 € short, box 5's insurance still on the line, box 7 paid too much."""
    boxes = [
        _seat(1, 2500, hands=[hand(["TS", "7H"], 17, 2500, status="stood")],
              payouts=[payout(0, "box1", "original", 2500, "push", 0)], net_cents=0),
        _seat(2, 1000, 500, insurance_cents=500, hands=[
            hand(["8S", "3H", "TD"], 21, 1500, status="twenty_one", from_split=True),
            hand(["8D", "2C", "9H"], 19, 1500, status="stood", from_split=True)],
              payouts=[payout(0, "box2", "original", 1000, "win", 1000),
                       payout(0, "box2.behind", "original", 500, "win", 500),
                       payout(1, "box2", "split", 1000, "win", 1000),
                       payout(1, "box2.behind", "split", 500, "win", 500),
                       payout(0, "box2", "insurance", 500, "insurance_lose", -500)], net_cents=2500),
        _seat(3, 123400, hands=[hand(["9C", "9D"], 18, 123400, status="stood")],
              payouts=[payout(0, "box3", "original", 123400, "win", 123400)], net_cents=123400),
        _seat(5, 5000, 2500, insurance_cents=2500, hands=[hand(["KH", "QC"], 20, 7500, status="stood")],
              payouts=[payout(0, "box5", "original", 5000, "win", 5000),
                       payout(0, "box5.behind", "original", 2500, "win", 2500),
                       payout(0, "box5", "insurance", 2500, "insurance_lose", -2500)], net_cents=5000),
        _seat(7, 10000, hands=[hand(["5S", "6S", "KD"], 21, 20000, status="doubled", doubled=True)],
              payouts=[payout(0, "box7", "original", 10000, "win", 10000),
                       payout(0, "box7", "double", 10000, "win", 10000)],
              net_cents=20000),
    ]
    snapshot = table(seq=3030, round_number=18, phase="settlement", allowed=["CONFIRM", "VOID"],
                     bank=bank_hand(["6H", "TC", "KS"], 26), boxes=boxes, cut_card_reached=True, cards_left=70)
    snapshot["payout_check"] = {
        "box1": {"due_cents": 2500, "seen_cents": 2500},
        "box2": {"due_cents": 4000, "seen_cents": 4000},
        "box2.behind": {"due_cents": 2000, "seen_cents": 1500},
        "box2.insurance": {"due_cents": 0, "seen_cents": 0},
        "box3": {"due_cents": 246800, "seen_cents": 246800},
        "box5": {"due_cents": 10000, "seen_cents": 10000},
        "box5.behind": {"due_cents": 5000, "seen_cents": 5000},
        "box5.insurance": {"due_cents": 0, "seen_cents": 2500},
        "box7": {"due_cents": 40000, "seen_cents": 42500},
    }
    return snapshot


def alarms() -> dict[str, Any]:
    """The checked settlement with three alarms up: a wrong payout, a refused command, the bank must draw."""
    raised = [
        alarm(21, "wrong_payout", "box2.behind: 15.00 € on the zone, 20.00 € due", box_number=2,
              amounts={"expected_cents": 2000, "seen_cents": 1500}, supervisor=True),
        alarm(22, "command_refused", "CONFIRM refused: held cards 4S must be assigned or discarded first",
              box_number=None, amounts={}),
        alarm(23, "bank_must_draw", "CONFIRM refused: the bank has 14 and must draw", box_number=None,
              amounts={"bank_total": 14}),
    ]
    # No rule line on the first, as before: this sample's rule was one the catalogue did not word, so the banner
    # showed none, and the layout tests measure the screen so (with three rule lines the fr-2020 boxes overflow
    # 800x480 by 17 px). test_rendering shows a wrong payout's rule.
    raised[0]["rule"] = ""
    raised[1]["rule"] = citations.CORRECTIONS
    raised[2]["rule"] = citations.BANK_DRAWS
    return with_alarms(settlement_checked(), *raised)


def recall_rounds() -> list[dict[str, Any]]:
    """Two recalled rounds; the newest ends in a settlement with its payouts."""
    return [recalled_round(16, 1000), recalled_round(17, 1100)]


PHASES = ("betting", "insurance", "split", "settlement", "alarms", "recall")
SNAPSHOTS = {"betting": betting, "insurance": insurance, "split": split, "settlement": settlement_checked,
             "alarms": alarms}


def snapshot_of(phase: str) -> dict[str, Any]:
    return copy.deepcopy(SNAPSHOTS[phase]())


# The rule profiles the display must fit, each as the runtime shows it: the 2020 profile adds the ABANDON button
# (while the hand may surrender), the hyper black jack field (55-4 6°) with stakes on every case, and players
# seated by name (a card's pseudonym); its phases are crowded to seven full boxes.
PROFILES = ("fr-casino", "fr-classic", "online", "fr-2020")
PSEUDONYM = "p-566f5303eafc"  # the width of a rated player's pseudonym (rating/pseudonym.py)


def _seven_boxes(snapshot: dict[str, Any]) -> None:
    """Every empty box played: four cards in hand once cards are out, a stake before."""
    dealt = any(b["hands"] for b in snapshot["boxes"])
    for item in snapshot["boxes"]:
        if item["seated_cents"]:
            continue
        number = item["box"]
        cards = ["2H", "3D", "4C", "8S"] if dealt else []
        hands = [hand(cards, 17, 1500, status="stood")] if dealt else []
        item.update(_seat(number, 1500, hands=hands))
        if snapshot["phase"] == "settlement":
            item["payouts"] = [payout(0, f"box{number}", "original", 1500, "win", 1500)]
            item["net_cents"] = 1500


def _hyper(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The field as game/hyper_settlement.py field_view shows it, a stake on every case (the boxes in turn, the
    largest amounts); settled with the bank's final result once the round is."""
    from table_runtime.game.events import Payout
    from table_runtime.game.hyper import HyperCase, bank_result
    from table_runtime.game.hyper_settlement import field_view, hyper_payouts
    from table_runtime.game.inputs import HyperBet

    bets = [HyperBet(case=case.value, box=index + 1, cents=123_400 if index % 2 else 12_500, owner=f"box{index + 1}")
            for index, case in enumerate(HyperCase)]
    payouts: list[Payout] = []
    result = None
    bank = snapshot["bank"]
    if snapshot["phase"] == "settlement" and bank["total"] >= 17:
        result = bank_result(bank["total"], len(bank["cards"]))
        payouts = hyper_payouts(bets, result)
    return field_view(bets, payouts, result)


def for_profile(snapshot: dict[str, Any], profile: str) -> dict[str, Any]:
    """`snapshot` as a table of `profile` shows it (a copy)."""
    shown = copy.deepcopy(snapshot)
    shown["profile"] = profile
    if profile != "fr-2020":
        return shown
    _seven_boxes(shown)
    if "NEXT" in shown["allowed"]:
        shown["allowed"] = [name for name in ("NEXT", "DOUBLE", "SPLIT", "SURRENDER", "UNDO", "CONFIRM", "VOID")
                            if name in shown["allowed"] or name == "SURRENDER"]
    shown["hyper"] = _hyper(shown)
    if shown["phase"] == "betting":
        shown["hyper_assigned"] = [{"case": item["case"], "box": stake["box"], "owner": stake["owner"],
                                    "cents": stake["cents"]}
                                   for item in shown["hyper"]["cases"] for stake in item["stakes"]]
    shown["seats"] = {str(number): PSEUDONYM for number in range(1, 8)}
    return shown
