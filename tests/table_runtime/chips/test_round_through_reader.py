"""A round seen through the real pyusb driver and the simulated reader, end to end.

The casino's CSV export fills the registry; players put chips on the simulated
reader's antennas, which flicker (5 % of reads missed); the driver's events go
through `apply_reader_event` into the watcher, which locks the bets, sees a
double, catches past-posting, a wrong payout and every bad chip, and reports
the reader unplugged.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from drivers.chip_reader import ReaderSettings, UsbChipReader
from firmware_bridge.rfid import AntennaStatus, Tag
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.live import apply_reader_event
from table_runtime.chips.registry import ChipRegistry
from table_runtime.chips.watch import ChipAlarm, ChipWatcher, PayoutVerified, Stake, WindowClosed
from table_runtime.chips.zones import ZoneChanged
from table_runtime.game.rules import TableLimits

pytestmark = pytest.mark.timeout(60)

CASINO = 42
ANTENNAS = {antenna: zone for antenna, zone in enumerate(
    (zone for box in (1, 2, 3) for zone in (f"box{box}", f"box{box}.behind", f"box{box}.insurance")), start=1)}


@dataclass
class Rig:
    device: SimulatedReader
    reader: UsbChipReader
    watcher: ChipWatcher
    issuer: ChipIssuer
    seen: list[ZoneChanged | ChipAlarm] = field(default_factory=list)

    async def until(self, condition: Callable[[], bool], seconds: float = 10.0) -> None:
        async with asyncio.timeout(seconds):
            while not condition():
                self.seen += apply_reader_event(self.watcher, await self.reader.next_event())

    async def alarm(self, kind: str, seconds: float = 10.0) -> ChipAlarm:
        start = len(self.seen)

        def found() -> bool:
            return any(isinstance(event, ChipAlarm) and event.kind == kind for event in self.seen[start:])

        await self.until(found, seconds)
        return next(event for event in self.seen[start:] if isinstance(event, ChipAlarm) and event.kind == kind)

    def alarms(self) -> list[ChipAlarm]:
        return [event for event in self.seen if isinstance(event, ChipAlarm)]

    async def totals(self, **cents: int) -> None:
        wanted = {zone.replace("_", "."): value for zone, value in cents.items()}
        await self.until(lambda: all(self.watcher.total_cents(zone) == value for zone, value in wanted.items()))


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    issuer = ChipIssuer(CASINO, seed=5)
    for denomination in (500, 1000, 2500, 10_000):
        issuer.issue(denomination, 40)
    export = tmp_path / "chips-export.csv"
    export.write_text(issuer.csv(), encoding="utf-8")
    with ChipRegistry(tmp_path / "chips.sqlite") as registry:
        registry.import_csv(export)
        snapshot = registry.snapshot()
    device = SimulatedReader(ANTENNAS, miss_rate=0.05, seed=3)
    settings = ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID, antenna_zones=ANTENNAS,
                              name="left", scan_interval=0.01, reconnect_interval=0.02, timeout_ms=200)
    watcher = ChipWatcher(ANTENNAS.values(), registry=snapshot, casino_id=CASINO)
    async with UsbChipReader(settings, backend=RfidBackend([device])) as reader:
        yield Rig(device, reader, watcher, issuer)


def take(rig: Rig, cents: int) -> list[Tag]:
    """Registered chips worth `cents` that are on no zone."""
    on_table = {tag.uid for zone in ANTENNAS.values() for tag in rig.device.chips(zone)}
    out: list[Tag] = []
    for denomination in (10_000, 2500, 1000, 500):
        for tag in rig.issuer.issued.values():
            if cents >= denomination == tag.denomination_cents and tag.uid not in on_table:
                out.append(tag)
                on_table.add(tag.uid)
                cents -= denomination
    assert cents == 0
    return out


async def test_a_round_through_the_reader(rig: Rig) -> None:
    device, watcher = rig.device, rig.watcher
    # Bets.
    device.place("box1", *take(rig, 2500))
    device.place("box1.behind", *take(rig, 1000))
    device.place("box2", *take(rig, 5000))
    await rig.totals(box1=2500, box1_behind=1000, box2=5000)
    snapshot = watcher.lock_bets(TableLimits(min_bet_cents=500, max_bet_cents=50_000))
    assert snapshot.stakes == (Stake(box=1, seated_cents=2500, behind_cents=1000),
                               Stake(box=2, seated_cents=5000, behind_cents=0))
    assert snapshot.alarms == ()

    # The bank shows an ace: box 2 insures for half its stake, box 1 declines.
    watcher.open_window("box1.insurance", "insurance", 1250)
    watcher.open_window("box2.insurance", "insurance", 2500)
    device.place("box2.insurance", *take(rig, 2500))
    await rig.totals(box2_insurance=2500)
    assert watcher.close_window("box2.insurance") == WindowClosed(
        zone="box2.insurance", box=2, kind="insurance", expected_cents=2500, added_cents=2500, accepted=True)
    declined = watcher.close_window("box1.insurance")
    assert isinstance(declined, WindowClosed) and not declined.accepted

    # Box 2 doubles: exactly its stake added inside the window.
    watcher.open_window("box2", "double", 5000)
    device.place("box2", *take(rig, 5000))
    await rig.totals(box2=10_000)
    assert watcher.close_window("box2") == WindowClosed(zone="box2", box=2, kind="double", expected_cents=5000,
                                                        added_cents=5000, accepted=True)

    # Someone slips a chip under box 1's stake: past-posting.
    late = take(rig, 500)
    device.place("box1", *late)
    alarm = await rig.alarm("past_posting")
    assert (alarm.zone, alarm.box, alarm.uid, alarm.expected_cents, alarm.seen_cents) == (
        "box1", 1, late[0].uid, 2500, 3000)
    device.remove("box1", late[0].uid)
    await rig.totals(box1=2500)

    # Settlement: box 1 and its behind player lose, box 2 wins its double 1:1 (20000 due).
    watcher.begin_settlement({"box1": 0, "box1.behind": 0, "box2": 20_000, "box2.insurance": 0})
    device.take_all("box1")
    device.take_all("box1.behind")
    device.take_all("box2.insurance")
    device.place("box2", *take(rig, 7500))  # the dealer pays 25.00 short
    await rig.totals(box1=0, box1_behind=0, box2=17_500)
    [wrong] = [verdict for verdict in watcher.verify_payouts() if isinstance(verdict, ChipAlarm)]
    assert (wrong.kind, wrong.zone, wrong.expected_cents, wrong.seen_cents) == ("wrong_payout", "box2", 20_000,
                                                                                17_500)
    assert "25.00 short" in wrong.message
    device.place("box2", *take(rig, 2500))
    await rig.totals(box2=20_000)
    verdicts = watcher.verify_payouts()
    assert [(verdict.zone, verdict.outcome) for verdict in verdicts if isinstance(verdict, PayoutVerified)] == [
        ("box1", "collected"), ("box1.behind", "collected"), ("box2", "paid"), ("box2.insurance", "collected")]
    assert not [verdict for verdict in verdicts if isinstance(verdict, ChipAlarm)]
    watcher.end_round()

    # Flicker tolerated: the only alarms of the whole round are the one past-posting.
    assert [alarm.kind for alarm in rig.alarms()] == ["past_posting"]


async def test_bets_outside_the_limits_are_named_at_the_lock(rig: Rig) -> None:
    rig.device.place("box1", *take(rig, 500))
    rig.device.place("box2", *take(rig, 40_000))
    rig.device.place("box2.behind", *take(rig, 20_000))
    rig.device.place("box3.behind", *take(rig, 1000))
    await rig.totals(box1=500, box2=40_000, box2_behind=20_000, box3_behind=1000)
    snapshot = rig.watcher.lock_bets(TableLimits(min_bet_cents=1000, max_bet_cents=50_000))
    assert [(alarm.kind, alarm.box, alarm.expected_cents, alarm.seen_cents) for alarm in snapshot.alarms] == [
        ("bet_under_minimum", 1, 1000, 500), ("bet_over_maximum", 2, 50_000, 60_000),
        ("behind_without_seated", 3, None, 1000)]


async def test_every_bad_chip_is_caught_through_the_reader(rig: Rig, tmp_path: Path) -> None:
    issuer = rig.issuer
    stolen, void, good = take(rig, 500)[0], take(rig, 1000)[0], take(rig, 2500)[0]
    issuer.mark(stolen.uid, "stolen")
    issuer.mark(void.uid, "void")
    export = tmp_path / "update.csv"
    export.write_text(issuer.csv(), encoding="utf-8")
    with ChipRegistry(tmp_path / "chips.sqlite") as registry:
        registry.import_csv(export)
        rig.watcher.use_registry(registry.snapshot())
    cases = [("box1", issuer.counterfeit(10_000), "counterfeit_chip"), ("box2", stolen, "stolen_chip"),
             ("box3", void, "void_chip"), ("box1.behind", ChipIssuer(9, seed=1).issue(500)[0], "other_casino_chip"),
             ("box2.behind", issuer.relabelled(good, 10_000), "tag_mismatch")]
    for zone, tag, kind in cases:
        rig.device.place(zone, tag)
        alarm = await rig.alarm(kind)
        assert (alarm.zone, alarm.uid) == (zone, tag.uid)
        assert rig.watcher.total_cents(zone) == 0


async def test_a_cut_antenna_is_an_alarm_and_its_chips_stay(rig: Rig) -> None:
    rig.device.place("box2", *take(rig, 2500))
    await rig.totals(box2=2500)
    rig.device.set_antenna_status("box2", AntennaStatus.OPEN)
    alarm = await rig.alarm("antenna_fault")
    assert (alarm.zone, alarm.box) == ("box2", 2)
    scans = rig.device.inventories
    await rig.until(lambda: rig.device.inventories > scans + 10 * len(ANTENNAS))  # twice the vanish rule
    assert rig.watcher.total_cents("box2") == 2500


async def test_unplugged_reader_raises_an_alarm_and_recovers(rig: Rig) -> None:
    await rig.until(lambda: rig.reader.online)
    rig.device.unplug()
    alarm = await rig.alarm("reader_offline")
    assert "left" in alarm.message and "box1.insurance" in alarm.message
    chip = take(rig, 1000)
    rig.device.place("box3", *chip)
    rig.device.replug()
    await rig.totals(box3=1000)
    assert rig.reader.online
