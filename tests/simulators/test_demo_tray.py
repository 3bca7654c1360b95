"""The live demo's chip tray read by RFID (simulators/demo_tray.py): its rows on the demo's reader, read by the real
pyusb driver and judged whole by the readers' edge (every row answered completely, the same chips over 3 scans:
core/tray.py), the dealer paying from it and collecting into it. A chip taken from it between two rounds is a
`tray_variance` naming the chip within the next round; the tray's own moves (payouts, collections, buy-ins, a
fill, the dealer colouring it with the cash desk) never are."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from simulators.demo_tray import DemoChips, layout_cents, tray_rows
from simulators.live_table import LiveDevices, deal_rounds
from simulators.rfid_backend import SimulatedReader
from simulators.rfid_chips import ChipIssuer
from table_runtime.config import zone_names
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController


def test_the_tray_moves_keep_its_value_and_its_rows_within_what_an_antenna_reads() -> None:
    rows = tray_rows()
    antennas = {index + 1: zone for index, zone in enumerate(("box1", *rows))}
    issuer = ChipIssuer(7, seed=1)
    chips = DemoChips(SimulatedReader(antennas, antennas=len(antennas) + 1), issuer)
    assert chips.tray_cents == layout_cents() == 3000 * 500  # the initial advance: 3,000 times the minimum
    issued = len(issuer.issued)
    rng = random.Random(5)
    expected = chips.tray_cents
    for _ in range(2000):
        chips.stake("box1", rng.randint(1, 40) * 500)
        if rng.random() < 0.5:
            expected += sum(chip.denomination_cents or 0 for chip in chips.collect("box1"))
        else:
            won = rng.choice((500, 750, 2250, 15_000, 7_250))
            chips.pay("box1", won)
            chips.to_player("box1")
            expected -= won
        if rng.random() < 0.3:
            sold = rng.choice((5000, 50_000, 150_000))
            chips.sell(sold)
            expected -= sold
        if chips.tray_cents < 1_275_000:
            filled = chips.fill(1_500_000)
            assert sum(int(cents) * number for cents, number in filled.items()) == 1_500_000
            expected += 1_500_000
        chips.tidy()  # colouring with the cash desk: for the same value
        assert chips.tray_cents == expected
        assert max(len(row) for row in chips.tray().values()) <= 64  # the simulated reader reports 64 a zone
    assert len(issuer.issued) == issued  # every chip the registry knows: none made up on the way


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_a_chip_taken_from_the_tray_between_two_rounds_is_a_variance_naming_it_within_a_round(
        tmp_path: Path) -> None:
    rules = profile("fr-casino")
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="TRAY", rules=rules, limits=TableLimits(), journal=journal,
                                     clock=lambda: 1_800_000_000.0, zones=(*zone_names(rules.boxes), *tray_rows()))
        devices = LiveDevices(controller, seed=3, data_dir=tmp_path, pin_factory=MockFactory(pin_class=MockPWMPin),
                              tray=True)
        devices.start()
        app = devices.app(controller)
        runner = asyncio.create_task(app.run())
        closed_at: dict[int, int] = {}
        stolen: list[str] = []

        def between_rounds(done: int) -> None:
            closed_at[done] = journal.last_seq
            if done == 3:  # a 1,000 € chip leaves the tray after round 3, before round 4's lock
                stolen.append(str(devices.at_tray("steal", 100_000)["uid"]))

        try:
            played = await deal_rounds(app, devices, rounds=4, seed=3, pace=0, error_rate=0.0,
                                       on_round=between_rounds, seance_rounds=20)
        finally:
            app.stop("test over")
            async with asyncio.timeout(20):
                await runner
            devices.stop()
        assert played == 4
        variances = [entry for entry in journal.entries(kinds=("alarm",))
                     if entry.body.get("kind") == AlarmKind.TRAY_VARIANCE]
        (variance,) = {entry.body["id"]: entry for entry in variances}.values()  # one alarm (its rows: raised, ...)
        first = min(entry.seq for entry in variances)
        assert closed_at[3] < first <= closed_at[4]  # within the round after the theft
        body = variance.body
        assert stolen[0] in body["message"] and "1 x 1000.00 € missing" in body["message"]
        assert body["amounts"]["variance_cents"] == -100_000 and body["amounts"]["round"] == 3
        assert "art. 49" in body["rule"]
        # The séance opened with the tray as the table read it, and the table's read is the tray as it lies.
        account = controller.core.seances.all[0]
        assert account.opener.source == "tray" and account.opener.cents == 1_500_000
        assert controller.core.tray.read_cents == devices.at_tray("count")["cents"]
