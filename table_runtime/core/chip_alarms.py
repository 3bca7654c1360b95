"""The chip watcher's alarms: each names the zone, the box, the amounts and the rule (docs/alarms.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from table_runtime.core.inputs import ZoneChip
from table_runtime.core.zones_due import zone_box
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm

if TYPE_CHECKING:
    from table_runtime.core.chip_watch import Verdict

RULE_PAST_POSTING = citations.PAST_POSTING_WINDOW
RULE_WINDOW = citations.WINDOW_AMOUNTS
RULE_PAYOUT = citations.PAYOUT
RULE_BEHIND = citations.BEHIND_ON_SEATED
RULE_INSURANCE_LINE = citations.INSURANCE_LINE
CHIP_RULES: dict[str, str] = {  # by ZoneChip.refused (a journaled string)
    AlarmKind.COUNTERFEIT_CHIP: citations.CHIP_UNKNOWN,
    AlarmKind.VOID_CHIP: citations.CHIP_VOID,
    AlarmKind.STOLEN_CHIP: citations.CHIP_STOLEN,
    AlarmKind.OTHER_CASINO_CHIP: citations.CHIP_OTHER_CASINO,
    AlarmKind.TAG_MISMATCH: citations.CHIP_TAG,
}


def euros(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def _amounts(**named: int | None) -> tuple[tuple[str, int], ...]:
    return tuple((name, value) for name, value in named.items() if value is not None)


def refused_chip(zone: str, chip: ZoneChip) -> Alarm:
    """A chip the registry refuses joined `zone` (or the registry refused it while it lay there)."""
    kind = chip.refused
    return Alarm(kind=kind, box=zone_box(zone), rule=CHIP_RULES.get(kind, citations.CHIP_INTEGRITY),
                 message=f"{zone}: {kind.replace('_', ' ')} {chip.uid}: {chip.detail}",
                 amounts=_amounts(expected_cents=chip.registry_cents, seen_cents=chip.tag_cents))


LISTED_UIDS = 3  # UIDs an alarm for many refused chips names (the journaled ZoneChanged has them all)


def refused_chips(zone: str, chips: Sequence[ZoneChip], unlisted: int = 0, kind: str = "") -> Alarm:
    """Refused chips of one kind that joined `zone` together (a stack of fakes, junk tags), `unlisted` more of
    them not listed in the zone's input: one alarm counting them, naming the first few and the last one's
    amounts."""
    if len(chips) == 1 and not unlisted:
        return refused_chip(zone, chips[0])
    kind = chips[0].refused if chips else kind
    count = len(chips) + unlisted
    listed = ", ".join(chip.uid for chip in chips[:LISTED_UIDS])
    more = count - min(len(chips), LISTED_UIDS)
    named = f" {listed}{f' and {more} more' if more else ''}" if chips else " (not listed: past the zone's list)"
    last = chips[-1] if chips else None
    return Alarm(kind=kind, box=zone_box(zone), rule=CHIP_RULES.get(kind, citations.CHIP_INTEGRITY),
                 message=f"{zone}: {count} {kind.replace('_', ' ')}s{named}" + (f": {last.detail}" if last else ""),
                 amounts=_amounts(expected_cents=None if last is None else last.registry_cents,
                                  seen_cents=None if last is None else last.tag_cents), count=count)


def past_posting(zone: str, locked: int, now: int, added: Sequence[ZoneChip], removed: Sequence[ZoneChip]) -> Alarm:
    moved = [("added", chip) for chip in added] + [("removed", chip) for chip in removed]
    listed = ", ".join(f"{verb} {chip.uid} ({euros(chip.cents)})" for verb, chip in moved)
    return Alarm(kind=AlarmKind.PAST_POSTING, box=zone_box(zone), rule=RULE_PAST_POSTING,
                 message=(f"{zone}: chips changed on a locked zone outside any window: {listed}; "
                          f"locked {euros(locked)}, now {euros(now)}"),
                 amounts=_amounts(expected_cents=locked, seen_cents=now))


def taken_off(verdict: Verdict, kind: str, now: int) -> Alarm:
    locked = now - verdict.added
    return Alarm(kind=AlarmKind.PAST_POSTING, box=verdict.window.box, rule=RULE_PAST_POSTING,
                 message=(f"{verdict.zone}: {euros(-verdict.added)} taken off a locked stake during the {kind} "
                          f"window; locked {euros(locked)}, now {euros(now)}"),
                 amounts=_amounts(expected_cents=locked, seen_cents=now))


def added_without_action(verdict: Verdict, now: int) -> Alarm:
    locked = now - verdict.added
    return Alarm(kind=AlarmKind.PAST_POSTING, box=verdict.window.box, rule=citations.PAST_POSTING,
                 message=(f"{verdict.zone}: {euros(verdict.added)} € added with no double or split; "
                          f"locked {euros(locked)} €, now {euros(now)} €"),
                 amounts=_amounts(expected_cents=locked, seen_cents=now, added_cents=verdict.added))


def stake_not_added(verdict: Verdict, kind: str) -> Alarm:
    """A DOUBLE or SPLIT the round accepted, and the seated zone did not get the equal stake."""
    expected = verdict.window.expected_cents
    what = "no stake" if verdict.added == 0 else f"{euros(verdict.added)} € instead of the stake"
    return Alarm(kind=AlarmKind.WRONG_WINDOW_AMOUNT, box=verdict.window.box,
                 rule=citations.EQUAL_STAKE,
                 message=f"{verdict.zone}: the {kind} was pressed but {what} of {euros(expected)} € was added",
                 amounts=_amounts(expected_cents=expected, seen_cents=verdict.added))


def wrong_window_amount(verdict: Verdict) -> Alarm:
    expected = verdict.window.expected_cents
    return Alarm(kind=AlarmKind.WRONG_WINDOW_AMOUNT, box=verdict.window.box, rule=RULE_WINDOW,
                 message=(f"{verdict.zone}: {verdict.window.kind} must add {euros(expected)}, "
                          f"{euros(verdict.added)} was added"),
                 amounts=_amounts(expected_cents=expected, seen_cents=verdict.added))


def behind_without_seated(box: int, cents: int) -> Alarm:
    return Alarm(kind=AlarmKind.BEHIND_WITHOUT_SEATED, box=box, rule=RULE_BEHIND, amounts=_amounts(seen_cents=cents),
                 message=f"box{box}: {euros(cents)} behind a box with no seated stake")


def chips_out_of_place(box: int, cents: int) -> Alarm:
    return Alarm(kind=AlarmKind.CHIPS_OUT_OF_PLACE, box=box, rule=RULE_INSURANCE_LINE,
                 amounts=_amounts(expected_cents=0, seen_cents=cents),
                 message=f"box{box}.insurance: {euros(cents)} on the insurance line at no more bets")


def wrong_payout(zone: str, due: int, seen: int, stake: int) -> Alarm:
    difference = seen - due
    what = ("collect the stake (zone empty)" if due == 0 else
            "leave the stake untouched" if due == stake else
            f"{euros(due)} of the stake {euros(stake)} back" if due < stake else  # a surrender's half
            f"stake {euros(stake)} + payout {euros(due - stake)}")
    return Alarm(kind=AlarmKind.WRONG_PAYOUT, box=zone_box(zone), rule=RULE_PAYOUT,
                 message=(f"{zone}: expected {euros(due)} ({what}), seen {euros(seen)}: "
                          f"{euros(abs(difference))} {'over' if difference > 0 else 'short'}"),
                 amounts=_amounts(expected_cents=due, seen_cents=seen))
