"""A round seen through the real pyusb driver and the simulated reader, end to end.

The casino's CSV export fills the registry; players put chips on the simulated
reader's antennas, which flicker (5 % of reads missed); the driver's events go
through the readers' edge into the table core (a real controller and journal),
which locks the bets, sees the insurance and a double, catches past-posting, a
wrong payout and every bad chip, and the edge reports the reader unplugged.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from drivers.chip_reader import ReaderSettings, UsbChipReader
from firmware_bridge.rfid import AntennaStatus, Tag
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import ChipRegistry
from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController

pytestmark = pytest.mark.timeout(60)

CASINO = 42
ANTENNAS = {antenna: zone for antenna, zone in enumerate(
    (zone for box in (1, 2, 3) for zone in (f"box{box}", f"box{box}.behind", f"box{box}.insurance")), start=1)}


@dataclass
class Rig:
    device: SimulatedReader
    reader: UsbChipReader
    reporter: ZoneReporter
    controller: TableController
    app: TableApp
    issuer: ChipIssuer

    async def until(self, condition: Callable[[], bool], seconds: float = 10.0) -> None:
        async with asyncio.timeout(seconds):
            while not condition():
                self.app.report_chips(self.reporter.reader_event(await self.reader.next_event()))

    async def alarm(self, kind: str, seconds: float = 10.0) -> dict[str, Any]:
        start = {alarm["id"] for alarm in self.controller.alarms.active}

        def new() -> list[dict[str, Any]]:
            return [a for a in self.controller.alarms.active if a["kind"] == kind and a["id"] not in start]

        await self.until(lambda: bool(new()), seconds)
        return new()[0]

    def kinds(self) -> list[str]:
        return [alarm["kind"] for alarm in self.controller.alarms.active]

    async def totals(self, **cents: int) -> None:
        wanted = {zone.replace("_", "."): value for zone, value in cents.items()}
        chips = self.controller.core.chips
        await self.until(lambda: all(chips.total(zone) == value for zone, value in wanted.items()))

    def draw(self, text: str) -> None:
        for card in parse_cards(text):
            self.controller.draw(CardDrawn(card=card), source="shoe")

    def press(self, name: str) -> dict[str, Any]:
        return self.app.controller.press(name, {}, role="dealer", source="panel")


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
    reporter = ZoneReporter(ANTENNAS.values(), registry=snapshot, casino_id=CASINO)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), journal=journal, clock=lambda: 1.0,
                                     limits=TableLimits(min_bet_cents=1000, max_bet_cents=50_000),
                                     zones=tuple(ANTENNAS.values()))
        app = TableApp(controller, chips=reporter)
        async with UsbChipReader(settings, backend=RfidBackend([device])) as reader:
            yield Rig(device, reader, reporter, controller, app, issuer)


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
    device, controller = rig.device, rig.controller
    controller.submit(ShoeShuffled(shoe_id="S1"))
    rig.draw("2C 3C 4C 5C 6C")  # the burns
    # Bets.
    device.place("box1", *take(rig, 2500))
    device.place("box1.behind", *take(rig, 1000))
    device.place("box2", *take(rig, 5000))
    await rig.totals(box1=2500, box1_behind=1000, box2=5000)
    assert rig.press("DEAL")["message"] == "bets locked"
    round_ = controller.table.round
    assert round_ is not None
    assert [(box.number, box.bet.seated_cents, box.bet.total_cents) for box in round_.boxes] == [
        (1, 2500, 3500), (2, 5000, 5000)]

    # The bank shows an ace: box 2 insures for half its stake, box 1 declines.
    rig.draw("TS 6H AD 9C 5D")  # box1 19, box2 11
    assert round_.phase == "insurance"
    device.place("box2.insurance", *take(rig, 2500))
    await rig.totals(box2_insurance=2500)
    assert rig.press("CONFIRM")["ok"]
    assert [box.insurance for box in round_.boxes] == [0, 2500]

    # Box 1 stands; box 2 doubles: exactly its stake added inside the window.
    assert rig.press("NEXT")["ok"]
    device.place("box2", *take(rig, 5000))
    await rig.totals(box2=10_000)
    assert rig.press("DOUBLE")["ok"]
    assert round_.hands[1].doubled
    rig.draw("9S")  # box2 20

    # Someone slips a chip under box 1's stake: past-posting.
    late = take(rig, 500)
    device.place("box1", *late)
    alarm = await rig.alarm("past_posting")
    assert (alarm["box"], alarm["amounts"]) == (1, {"expected_cents": 2500, "seen_cents": 3000})
    assert late[0].uid in alarm["message"]
    device.remove("box1", late[0].uid)
    await rig.totals(box1=2500)

    # The bank A8, 19: box 1 and its behind player push, box 2 wins its double 1:1 (20000 due), insurance lost.
    rig.draw("8C")
    assert round_.phase == "settlement"
    device.take_all("box2.insurance")
    device.place("box2", *take(rig, 7500))  # the dealer pays 25.00 short
    await rig.totals(box2=17_500, box2_insurance=0)
    assert controller.snapshot()["payout_check"] == {
        "box1": {"due_cents": 2500, "seen_cents": 2500}, "box1.behind": {"due_cents": 1000, "seen_cents": 1000},
        "box2": {"due_cents": 20_000, "seen_cents": 17_500}, "box2.insurance": {"due_cents": 0, "seen_cents": 0}}
    device.place("box2", *take(rig, 2500))
    await rig.totals(box2=20_000)
    assert rig.press("CONFIRM")["ok"]
    assert round_.phase == "closed"

    # Flicker tolerated: the only alarm of the whole round is the one past-posting.
    assert rig.kinds() == ["past_posting"]


async def test_bets_outside_the_limits_are_named_at_the_lock(rig: Rig) -> None:
    rig.controller.submit(ShoeShuffled(shoe_id="S1"))
    rig.draw("2C 3C 4C 5C 6C")
    rig.device.place("box1", *take(rig, 500))
    rig.device.place("box2", *take(rig, 40_000))
    rig.device.place("box2.behind", *take(rig, 20_000))
    rig.device.place("box3.behind", *take(rig, 1000))
    await rig.totals(box1=500, box2=40_000, box2_behind=20_000, box3_behind=1000)
    assert rig.press("DEAL")["message"] == "bets not locked: see the alarms"
    assert sorted((alarm["kind"], alarm["box"]) for alarm in rig.controller.alarms.active) == [
        ("behind_without_seated", 3), ("bet_over_maximum", 2), ("bet_under_minimum", 1)]


async def test_every_bad_chip_is_caught_through_the_reader(rig: Rig, tmp_path: Path) -> None:
    issuer = rig.issuer
    stolen, void, good = take(rig, 500)[0], take(rig, 1000)[0], take(rig, 2500)[0]
    issuer.mark(stolen.uid, "stolen")
    issuer.mark(void.uid, "void")
    export = tmp_path / "update.csv"
    export.write_text(issuer.csv(), encoding="utf-8")
    with ChipRegistry(tmp_path / "chips.sqlite") as registry:
        registry.import_csv(export)
        rig.controller.report_zones(rig.reporter.use_registry(registry.snapshot()))
    cases = [("box1", issuer.counterfeit(10_000), "counterfeit_chip"), ("box2", stolen, "stolen_chip"),
             ("box3", void, "void_chip"), ("box1.behind", ChipIssuer(9, seed=1).issue(500)[0], "other_casino_chip"),
             ("box2.behind", issuer.relabelled(good, 10_000), "tag_mismatch")]
    for zone, tag, kind in cases:
        rig.device.place(zone, tag)
        alarm = await rig.alarm(kind)
        assert alarm["message"].startswith(f"{zone}: ") and tag.uid in alarm["message"]
        assert rig.controller.core.chips.total(zone) == 0


async def test_a_cut_antenna_is_an_alarm_and_its_chips_stay(rig: Rig) -> None:
    rig.device.place("box2", *take(rig, 2500))
    await rig.totals(box2=2500)
    rig.device.set_antenna_status("box2", AntennaStatus.OPEN)
    alarm = await rig.alarm("antenna_fault")
    assert alarm["box"] == 2 and alarm["message"].startswith("box2: ")
    scans = rig.device.inventories
    await rig.until(lambda: rig.device.inventories > scans + 10 * len(ANTENNAS))  # twice the vanish rule
    assert rig.controller.core.chips.total("box2") == 2500


async def test_unplugged_reader_raises_an_alarm_and_recovers(rig: Rig) -> None:
    await rig.until(lambda: rig.reader.online)
    rig.device.unplug()
    alarm = await rig.alarm("reader_offline")
    assert "left" in alarm["message"] and "box1.insurance" in alarm["message"]
    chip = take(rig, 1000)
    rig.device.place("box3", *chip)
    rig.device.replug()
    await rig.totals(box3=1000)
    assert rig.reader.online
