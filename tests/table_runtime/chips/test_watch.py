"""The bet watcher, fed scans directly: locks, windows, past-posting, payouts, chip integrity."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.rfid import Tag
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.registry import ChipRegistry, RegisteredChip
from table_runtime.chips.watch import (
    BetsSnapshot,
    ChipAlarm,
    ChipWatcher,
    PayoutVerified,
    Stake,
    WatcherUseError,
    WindowClosed,
    zone_box,
)
from table_runtime.chips.zones import ZoneChanged
from table_runtime.game.rules import TableLimits

CASINO = 42
ZONES = [zone for box in (1, 2, 3) for zone in (f"box{box}", f"box{box}.behind", f"box{box}.insurance")]
LIMITS = TableLimits(min_bet_cents=500, max_bet_cents=50_000)


class Table:
    """The chips physically on each zone, scanned until the watcher's view is stable."""

    def __init__(self, issuer: ChipIssuer, registry: Mapping[str, RegisteredChip]) -> None:
        self.issuer = issuer
        self.on: dict[str, list[Tag]] = {zone: [] for zone in ZONES}
        self.watcher = ChipWatcher(ZONES, registry=registry, casino_id=CASINO)
        self.time = 0.0

    def put(self, zone: str, chips: Sequence[Tag]) -> list[ZoneChanged | ChipAlarm]:
        self.on[zone] += chips
        return self.settle()

    def take(self, zone: str, count: int | None = None) -> list[Tag]:
        count = len(self.on[zone]) if count is None else count
        taken, self.on[zone] = self.on[zone][:count], self.on[zone][count:]
        return taken

    def settle(self) -> list[ZoneChanged | ChipAlarm]:
        out: list[ZoneChanged | ChipAlarm] = []
        for _ in range(5):
            self.time += 0.1
            out += self.watcher.scan(self.on, self.time)
        return out


def alarms(events: Sequence[object]) -> list[ChipAlarm]:
    return [event for event in events if isinstance(event, ChipAlarm)]


def new_table() -> Table:
    issuer = ChipIssuer(CASINO, seed=1)
    # Issue a float of chips and register them, as the casino does.
    for denomination in (100, 500, 1000, 2500, 10_000):
        issuer.issue(denomination, 30)
    registry = ChipRegistry(":memory:")
    registry.import_text(issuer.csv())
    table = Table(issuer, registry.snapshot())
    registry.close()
    return table


@pytest.fixture
def table() -> Table:
    return new_table()


def chips(table: Table, cents: int) -> list[Tag]:
    """Registered chips worth `cents`, not yet on the table."""
    used = {tag.uid for stack in table.on.values() for tag in stack}
    out: list[Tag] = []
    for denomination in (10_000, 2500, 1000, 500, 100):
        for tag in table.issuer.issued.values():
            if cents >= denomination and tag.denomination_cents == denomination and tag.uid not in used:
                out.append(tag)
                used.add(tag.uid)
                cents -= denomination
    assert cents == 0
    return out


def test_lock_makes_stakes_and_checks_limits(table: Table) -> None:
    table.put("box1", chips(table, 2500))
    table.put("box1.behind", chips(table, 1000))
    table.put("box2", chips(table, 100))  # under the minimum
    table.put("box3.behind", chips(table, 500))  # nobody seated
    snapshot = table.watcher.lock_bets(LIMITS)
    assert isinstance(snapshot, BetsSnapshot)
    assert snapshot.stakes == (Stake(box=1, seated_cents=2500, behind_cents=1000),
                               Stake(box=2, seated_cents=100, behind_cents=0),
                               Stake(box=3, seated_cents=0, behind_cents=500))
    assert snapshot.zones["box1"] == 2500
    assert [(alarm.kind, alarm.box, alarm.expected_cents, alarm.seen_cents) for alarm in snapshot.alarms] == [
        ("bet_under_minimum", 2, 500, 100), ("behind_without_seated", 3, None, 500)]
    assert "under the minimum 5.00" in snapshot.alarms[0].message


def test_seated_plus_behind_over_the_maximum(table: Table) -> None:
    table.put("box2", chips(table, 40_000))
    table.put("box2.behind", chips(table, 20_000))
    [alarm] = table.watcher.lock_bets(LIMITS).alarms
    assert (alarm.kind, alarm.zone, alarm.expected_cents, alarm.seen_cents) == ("bet_over_maximum", "box2", 50_000,
                                                                                60_000)
    assert "seated 400.00 + behind 200.00 = 600.00" in alarm.message


def test_chips_added_after_the_lock_are_past_posting(table: Table) -> None:
    table.put("box1", chips(table, 2500))
    table.watcher.lock_bets(LIMITS)
    late = chips(table, 10_000)
    [alarm] = alarms(table.put("box1", late))
    assert (alarm.kind, alarm.zone, alarm.box, alarm.uid) == ("past_posting", "box1", 1, late[0].uid)
    assert (alarm.expected_cents, alarm.seen_cents) == (2500, 12_500)
    assert "outside any window" in alarm.message and alarm.rule.startswith("TABLE.md past-posting")


def test_chips_removed_after_the_lock_are_past_posting_and_putting_them_back_is_quiet(table: Table) -> None:
    table.put("box2", chips(table, 3500))
    table.watcher.lock_bets(LIMITS)
    taken = table.take("box2", 1)
    [alarm] = alarms(table.settle())
    assert (alarm.kind, alarm.uid, alarm.expected_cents, alarm.seen_cents) == ("past_posting", taken[0].uid,
                                                                               3500, 1000)
    assert alarms(table.put("box2", taken)) == []


def test_a_bet_placed_on_an_empty_box_after_the_lock_is_past_posting(table: Table) -> None:
    table.watcher.lock_bets(LIMITS)
    [alarm] = alarms(table.put("box3", chips(table, 500)))
    assert (alarm.kind, alarm.expected_cents, alarm.seen_cents) == ("past_posting", 0, 500)


def test_a_double_adds_exactly_the_stake(table: Table) -> None:
    table.put("box1", chips(table, 2500))
    table.watcher.lock_bets(LIMITS)
    table.watcher.open_window("box1", "double", 2500)
    assert alarms(table.put("box1", chips(table, 2500))) == []
    assert table.watcher.close_window("box1") == WindowClosed(zone="box1", box=1, kind="double",
                                                              expected_cents=2500, added_cents=2500, accepted=True)
    assert table.watcher.locked_cents("box1") == 5000
    [alarm] = alarms(table.put("box1", chips(table, 100)))  # after the window: past-posting again
    assert alarm.kind == "past_posting"


def test_a_double_for_less_is_named(table: Table) -> None:
    table.put("box1", chips(table, 2500))
    table.watcher.lock_bets(LIMITS)
    table.watcher.open_window("box1", "double", 2500)
    table.put("box1", chips(table, 2000))
    alarm = table.watcher.close_window("box1")
    assert isinstance(alarm, ChipAlarm)
    assert (alarm.kind, alarm.box, alarm.expected_cents, alarm.seen_cents) == ("wrong_window_amount", 1, 2500, 2000)
    assert alarm.message == "box1: double must add 25.00, 20.00 was added"


def test_insurance_declined_and_a_window_on_one_zone_leaves_others_locked(table: Table) -> None:
    table.put("box1", chips(table, 2000))
    table.put("box2", chips(table, 1000))
    table.watcher.lock_bets(LIMITS)
    table.watcher.open_window("box1.insurance", "insurance", 1000)
    table.watcher.open_window("box2.insurance", "insurance", 500)
    table.put("box1.insurance", chips(table, 1000))
    [alarm] = alarms(table.put("box2", chips(table, 500)))  # next to the insurance line, on the stake
    assert (alarm.kind, alarm.zone) == ("past_posting", "box2")
    assert table.watcher.close_window("box1.insurance") == WindowClosed(
        zone="box1.insurance", box=1, kind="insurance", expected_cents=1000, added_cents=1000, accepted=True)
    declined = table.watcher.close_window("box2.insurance")
    assert isinstance(declined, WindowClosed) and not declined.accepted


def test_settlement_collected_paid_push_and_wrong(table: Table) -> None:
    table.put("box1", chips(table, 2000))  # loses
    table.put("box2", chips(table, 1000))  # wins 1:1
    table.put("box3", chips(table, 2000))  # pushes
    table.put("box3.behind", chips(table, 1000))  # behind wins 3:2, paid short
    table.watcher.lock_bets(LIMITS)
    table.watcher.begin_settlement({"box1": 0, "box2": 2000, "box3": 2000, "box3.behind": 2500})
    table.take("box1")
    table.put("box2", chips(table, 1000))
    table.put("box3.behind", chips(table, 1000))
    verdicts = table.watcher.verify_payouts()
    assert [verdict for verdict in verdicts if isinstance(verdict, PayoutVerified)] == [
        PayoutVerified(zone="box1", box=1, outcome="collected", stake_cents=2000, expected_cents=0),
        PayoutVerified(zone="box2", box=2, outcome="paid", stake_cents=1000, expected_cents=2000),
        PayoutVerified(zone="box3", box=3, outcome="push", stake_cents=2000, expected_cents=2000),
    ]
    [alarm] = alarms(verdicts)
    assert (alarm.kind, alarm.zone, alarm.box, alarm.expected_cents, alarm.seen_cents) == (
        "wrong_payout", "box3.behind", 3, 2500, 2000)
    assert alarm.message == "box3.behind: expected 25.00 (stake 10.00 + payout 15.00), seen 20.00: 5.00 short"
    table.put("box3.behind", chips(table, 500))
    assert alarms(table.watcher.verify_payouts()) == []
    table.watcher.end_round()
    table.take("box2")  # players take their chips
    assert alarms(table.settle()) == []


def test_a_push_touched_and_a_loser_not_collected_are_wrong(table: Table) -> None:
    table.put("box1", chips(table, 2000))
    table.put("box2", chips(table, 1000))
    table.watcher.lock_bets(LIMITS)
    table.watcher.begin_settlement({"box1": 2000, "box2": 0})
    table.put("box1", chips(table, 2000))
    verdicts = alarms(table.watcher.verify_payouts())
    assert [(alarm.zone, alarm.expected_cents, alarm.seen_cents) for alarm in verdicts] == [
        ("box1", 2000, 4000), ("box2", 0, 1000)]
    assert "leave the stake untouched" in verdicts[0].message and "20.00 over" in verdicts[0].message
    assert "collect the stake (zone empty)" in verdicts[1].message


def test_each_bad_chip_is_named_with_its_zone_box_and_uid(table: Table) -> None:
    issuer = table.issuer
    good = chips(table, 2500)
    void, stolen = chips(table, 500), chips(table, 1000)
    registry = {uid: RegisteredChip(uid=uid, denomination_cents=tag.denomination_cents or 0, casino_id=CASINO,
                                    status="void" if uid == void[0].uid else "stolen" if uid == stolen[0].uid
                                    else "active")
                for uid, tag in issuer.issued.items()}
    foreign = ChipIssuer(7, seed=99).issue(2500)[0]
    counterfeit = issuer.counterfeit(10_000)
    relabelled = issuer.relabelled(good[0], 10_000)
    table.watcher.use_registry(registry)
    cases = [("box1", counterfeit, "counterfeit_chip", None, 10_000), ("box2", void[0], "void_chip", 500, 500),
             ("box2.behind", stolen[0], "stolen_chip", 1000, 1000), ("box3", foreign, "other_casino_chip", None, 2500),
             ("box3.behind", relabelled, "tag_mismatch", 2500, 10_000)]
    for zone, tag, kind, expected, seen in cases:
        [alarm] = alarms(table.put(zone, [tag]))
        assert (alarm.kind, alarm.zone, alarm.box, alarm.uid) == (kind, zone, zone_box(zone), tag.uid)
        assert (alarm.expected_cents, alarm.seen_cents) == (expected, seen)
        assert tag.uid in alarm.message and alarm.rule.startswith("TABLE.md chip integrity")
        assert table.watcher.total_cents(zone) == 0  # a refused chip is worth nothing
    fine = chips(table, 1000)
    assert alarms(table.put("box1", fine)) == []
    assert table.watcher.total_cents("box1") == 1000


def test_reader_offline_alarm_names_the_zones(table: Table) -> None:
    alarm = table.watcher.reader_offline("left", ["box1", "box1.behind"], "No such device")
    assert (alarm.kind, alarm.zone, alarm.box) == ("reader_offline", None, None)
    assert "left" in alarm.message and "box1, box1.behind" in alarm.message
    assert alarm.amounts == ()


def test_misuse_is_refused(table: Table) -> None:
    with pytest.raises(WatcherUseError):
        table.watcher.open_window("box1", "double", 500)
    table.watcher.lock_bets(LIMITS)
    with pytest.raises(WatcherUseError):
        table.watcher.lock_bets(LIMITS)
    table.watcher.open_window("box1", "double", 500)
    with pytest.raises(WatcherUseError, match="already open"):
        table.watcher.open_window("box1", "split", 500)
    with pytest.raises(WatcherUseError, match="windows still open"):
        table.watcher.begin_settlement({})
    with pytest.raises(WatcherUseError, match="no window"):
        table.watcher.close_window("box2")


def test_an_antenna_fault_is_one_alarm_until_it_changes(table: Table) -> None:
    watcher = table.watcher
    [alarm] = watcher.antenna_statuses({"box1": "OK", "box2": "OPEN"})
    assert (alarm.kind, alarm.zone, alarm.box) == ("antenna_fault", "box2", 2)
    assert "cable cut" in alarm.message
    assert watcher.antenna_statuses({"box2": "OPEN"}) == []
    assert [a.message for a in watcher.antenna_statuses({"box2": "TOO_MANY_TAGS"})] == [
        "box2: more chips than the reader reports: the zone is not fully read; its chips keep their last known state"]
    assert watcher.antenna_statuses({"box2": "OK"}) == []
    assert len(watcher.antenna_statuses({"box2": "OPEN"})) == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ZONES), st.booleans(), st.integers(1, 3), st.booleans()), max_size=6))
def test_every_change_outside_a_window_is_past_posting_and_none_inside(
        steps: list[tuple[str, bool, int, bool]]) -> None:
    table = new_table()
    table.put("box1", chips(table, 2500))
    table.put("box2.behind", chips(table, 1000))
    table.watcher.lock_bets(LIMITS)
    lock_sets = {zone: {tag.uid for tag in table.on[zone]} for zone in ZONES}
    for zone, adding, count, in_window in steps:
        before = {tag.uid for tag in table.on[zone]}
        locked_cents = table.watcher.locked_cents(zone) or 0
        if in_window:
            table.watcher.open_window(zone, "double", 500 * count)
        if adding:
            table.on[zone] += chips(table, 500 * count)
        else:
            table.take(zone, count)
        raised = [alarm for alarm in alarms(table.settle()) if alarm.kind == "past_posting"]
        now = {tag.uid for tag in table.on[zone]}
        # Put back exactly as locked is quiet; any other change is one alarm.
        assert len(raised) == (1 if now != before and now != lock_sets[zone] and not in_window else 0)
        if raised:
            assert raised[0].zone == zone and raised[0].seen_cents == table.watcher.total_cents(zone)
        if in_window:
            verdict = table.watcher.close_window(zone)
            added = table.watcher.total_cents(zone) - locked_cents  # against the lock, not the zone's last total
            assert isinstance(verdict, WindowClosed) == (added in (0, 500 * count))
            lock_sets[zone] = now


def test_a_chip_marked_stolen_while_on_the_table_is_an_alarm_at_once_and_worth_nothing(table: Table) -> None:
    """TABLE.md Chip integrity: a registry update (a chip reported stolen mid-shift) applies to the chips already
    on the zones, not only to those that move afterwards."""
    stake = chips(table, 1500)  # a 10.00 € and a 5.00 € chip
    assert alarms(table.put("box2", stake)) == []
    counterfeit = table.issuer.counterfeit(2500)
    assert [a.kind for a in alarms(table.put("box3", [counterfeit]))] == ["counterfeit_chip"]
    stolen = stake[0]
    registry = {uid: dataclasses.replace(chip, status="stolen" if uid == stolen.uid else chip.status)
                for uid, chip in table.watcher.registry.items()}
    (alarm,) = table.watcher.use_registry(registry)  # the counterfeit on box3 was said already: not again
    assert (alarm.kind, alarm.zone, alarm.box, alarm.uid) == ("stolen_chip", "box2", 2, stolen.uid)
    assert table.watcher.total_cents("box2") == 1500 - (stolen.denomination_cents or 0)
    assert table.watcher.use_registry(registry) == []  # the same registry again: nothing new
