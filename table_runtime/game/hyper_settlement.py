"""The hyper black jack field in a round (55-4 6°): which bets the lock accepts, and what each stake is paid.

« Avant la distribution des cartes, les joueurs ont la possibilité de miser sur l'hyper black jack, sans
limitation du nombre de cases, après avoir engagé leur mise principale » : a hyper bet belongs to a box with a
main bet (the dealer assigns it, core/hyper_field.py), within the director's minimum and maximum per case and
box (`TableLimits.hyper_*`), by the seated player only where the casino keeps the field to them
(`hyper_seated_only`). « Le croupier, après avoir déterminé et annoncé un point, ramasse les mises perdantes
de l'hyper black jack puis du black jack et paie les mises gagnantes du black jack puis de l'hyper black
jack » : `settlement_order` lists the round's payouts in those four steps.

A hyper stake's payout is a `Payout` like the boxes' (so the round record, recall and the floor's handle and win
count it), of kind ``hyper.<case>`` (the case it lies on), outcome ``hyper_win`` or ``hyper_lose``, hand 0.
Pure: integer cents, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm, Event, Payout
from table_runtime.game.hyper import ODDS, HyperCase, winnings_cents
from table_runtime.game.inputs import BoxBet, HyperBet
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import RuleOptions, TableLimits

RULE: Final = citations.HYPER_FIELD
HYPER_KIND_PREFIX: Final = "hyper."
WIN: Final = "hyper_win"
LOSE: Final = "hyper_lose"
# The four steps of the text's settlement, in its order.
COLLECT_HYPER: Final = "collect_hyper"
COLLECT_MAIN: Final = "collect_main"
PAY_MAIN: Final = "pay_main"
PAY_HYPER: Final = "pay_hyper"
SETTLEMENT_STEPS: Final = (COLLECT_HYPER, COLLECT_MAIN, PAY_MAIN, PAY_HYPER)


def hyper_zone(case: str) -> str:
    """The chip zone of a case: ``hyper.17`` ... ``hyper.blackjack``, ``hyper.bust``."""
    return f"{HYPER_KIND_PREFIX}{case}"


HYPER_ZONES: Final = tuple(hyper_zone(case) for case in HyperCase)


def is_hyper(payout: Payout) -> bool:
    return payout.kind.startswith(HYPER_KIND_PREFIX)


def hyper_bet_problems(hyper: Sequence[HyperBet], bets: Sequence[BoxBet], rules: RuleOptions,
                       limits: TableLimits) -> list[Event]:
    """Every reason the hyper bets cannot be locked, each an alarm naming the case, the box and the amounts."""
    problems: list[Event] = []
    if not hyper:
        return problems
    by_box = {bet.box: bet for bet in bets}
    per_case_box: dict[tuple[str, int], int] = {}
    for bet in hyper:
        where = f"hyper {bet.case}, box {bet.box}"
        if not rules.hyper_blackjack:
            problems.append(_refused(bet, f"{where}: {bet.cents} cents refused: this table's rules do not open "
                                          "the hyper black jack field (rules.hyper_blackjack)"))
            continue
        if bet.case not in set(HyperCase):
            problems.append(_refused(bet, f"hyper case {bet.case!r} is not one of {', '.join(HyperCase)}"))
            continue
        box = by_box.get(bet.box)
        if box is None:
            problems.append(_refused(bet, f"{where}: {bet.cents} cents refused: box {bet.box} has no main bet "
                                          "(« après avoir engagé leur mise principale »)"))
            continue
        behind = {b.owner for b in box.behind}
        if bet.owner and bet.owner != box.owner and (rules.hyper_seated_only or bet.owner not in behind):
            why = ("the casino keeps the field to seated players (hyper_seated_only)" if rules.hyper_seated_only
                   else f"{bet.owner} plays no stake behind box {bet.box}")
            problems.append(_refused(bet, f"{where}: {bet.cents} cents of {bet.owner} refused: {why}"))
            continue
        key = (bet.case, bet.box)
        per_case_box[key] = per_case_box.get(key, 0) + bet.cents
    for (case, box_number), cents in per_case_box.items():
        if cents < limits.hyper_min_bet_cents:
            problems.append(Alarm(
                kind=AlarmKind.BET_UNDER_MINIMUM, box=box_number, rule=citations.HYPER_MINIMUM,
                message=f"hyper {case}, box {box_number}: {cents} cents is under the hyper minimum "
                        f"{limits.hyper_min_bet_cents}",
                amounts=(("hyper_cents", cents), ("min_cents", limits.hyper_min_bet_cents))))
        if cents > limits.hyper_max_bet_cents:
            problems.append(Alarm(
                kind=AlarmKind.BET_OVER_MAXIMUM, box=box_number, rule=citations.HYPER_MAXIMUM,
                message=f"hyper {case}, box {box_number}: {cents} cents is over the hyper maximum "
                        f"{limits.hyper_max_bet_cents}",
                amounts=(("hyper_cents", cents), ("max_cents", limits.hyper_max_bet_cents))))
    return problems


def _refused(bet: HyperBet, message: str) -> Alarm:
    return Alarm(kind=AlarmKind.HYPER_BET_REFUSED, box=bet.box, rule=RULE, message=message,
                 amounts=(("hyper_cents", bet.cents),))


def hyper_bank_alarm(bank_total: int, hyper: Sequence[HyperBet]) -> Alarm:
    """CONFIRM while the bank must still complete its hand for the hyper field, every box being decided."""
    staked = sum(bet.cents for bet in hyper)
    return Alarm(kind=AlarmKind.BANK_MUST_DRAW, reason=RefusalReason.HYPER_BANK_MUST_DRAW,
                 message=f"CONFIRM refused: the bank has {bank_total} and must draw to settle the hyper black jack "
                         f"field ({staked} cents on it)",
                 rule=citations.HYPER_BANK_DRAWS,
                 amounts=(("bank_total", bank_total), ("hyper_cents", staked)))


def hyper_payouts(hyper: Iterable[HyperBet], result: HyperCase) -> list[Payout]:
    """One payout per hyper stake once the bank's final result is `result`: x pour 1 on its case (the stake kept,
    game/hyper.py), else lost."""
    payouts = []
    for bet in hyper:
        case = HyperCase(bet.case)
        won = case is result
        payouts.append(Payout(box=bet.box, hand=0, owner=bet.owner or f"box{bet.box}", kind=hyper_zone(bet.case),
                              staked_cents=bet.cents, outcome=WIN if won else LOSE,
                              net_cents=winnings_cents(case, bet.cents) if won else -bet.cents,
                              note=f"{case.label} paid {ODDS[case]} pour 1" if won else ""))
    return payouts


def ordered_payouts(main: Sequence[Payout], hyper: Sequence[Payout]) -> tuple[Payout, ...]:
    """The round's payouts in the text's order: the hyper stakes lost, the boxes' payouts, the hyper stakes won."""
    return (*[p for p in hyper if p.net_cents < 0], *main, *[p for p in hyper if p.net_cents > 0])


def settlement_order(payouts: Iterable[Payout]) -> list[dict[str, object]]:
    """The four steps of the settlement (55-4 6°) with what each moves: zones and cents, in the text's order.
    A step with nothing to move is listed with none, so the display shows the whole procedure."""
    steps: dict[str, dict[str, int]] = {step: {} for step in SETTLEMENT_STEPS}
    for payout in payouts:
        hyper = is_hyper(payout)
        if payout.net_cents < 0:
            step = COLLECT_HYPER if hyper else COLLECT_MAIN
        elif payout.net_cents > 0:
            step = PAY_HYPER if hyper else PAY_MAIN
        else:
            continue
        zone = payout.kind if hyper else _main_zone(payout)
        steps[step][zone] = steps[step].get(zone, 0) + abs(payout.net_cents)
    return [{"step": step, "zones": dict(sorted(zones.items())), "cents": sum(zones.values())}
            for step, zones in steps.items()]


def _main_zone(payout: Payout) -> str:
    if payout.kind == "insurance":
        return f"box{payout.box}.insurance"
    return f"box{payout.box}.behind" if payout.owner.endswith(".behind") else f"box{payout.box}"


def field_view(hyper: Sequence[HyperBet], payouts: Sequence[Payout], result: HyperCase | None) -> dict[str, object]:
    """The hyper field as the display shows it (docs/display.md "hyper"): per case its label, odds, zone, the
    stakes locked on it by box and, once settled, their payouts; the bank's final result; the settlement's
    four steps in the text's order."""
    cases = []
    for case in HyperCase:
        zone = hyper_zone(case)
        cases.append({
            "case": case.value, "label": case.label, "odds": ODDS[case], "zone": zone,
            "stakes": [{"box": bet.box, "owner": bet.owner, "cents": bet.cents} for bet in hyper if bet.case == case],
            "payouts": [{"box": p.box, "owner": p.owner, "staked_cents": p.staked_cents, "outcome": p.outcome,
                         "net_cents": p.net_cents} for p in payouts if p.kind == zone],
        })
    settled = result is not None and any(is_hyper(payout) for payout in payouts)
    return {"cases": cases, "result": None if result is None else result.value,
            "settlement": settlement_order(payouts) if settled else []}
