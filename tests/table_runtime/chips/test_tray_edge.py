"""The chip tray's rows at the readers' edge (chips/edge.py, core/tray.py): reported by whole reads only, never chip
by chip; a flickering or incomplete read is not reported; the core's ask for a read is answered by the next whole
one. And the rows in the configuration's antenna map."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.ports import ChipsScanned, ReaderOffline, ZoneReading
from firmware_bridge.rfid import AntennaStatus, Tag
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import RegisteredChip
from table_runtime.config import ConfigInvalidError, load_config
from table_runtime.core.inputs import ZoneChanged
from tests.table_runtime.test_config import write
from tests.table_runtime.test_config_feig import feig

ROWS = ("tray.row1", "tray.row2")


class Edge:
    def __init__(self) -> None:
        issuer = ChipIssuer(7, seed=2)
        self.rows: dict[str, list[Tag]] = {"tray.row1": issuer.issue(2500, 30), "tray.row2": issuer.issue(500, 30)}
        self.registry = {chip.uid: RegisteredChip(uid=chip.uid, denomination_cents=chip.denomination_cents or 0,
                                                  casino_id=7, status="active") for chip in issuer.issued.values()}
        self.reporter = ZoneReporter(("box1", *ROWS), registry=self.registry, casino_id=7, tray_scans=3)
        self.now = 0.0

    def scan(self, *, missing: str = "", status: AntennaStatus = AntennaStatus.OK) -> list[ZoneChanged]:
        self.now += 0.1
        readings = [ZoneReading(zone="box1", tags=())] + [
            ZoneReading(zone=row, tags=tuple(tag for tag in tags if tag.uid != missing),
                        status=status if row == "tray.row2" else AntennaStatus.OK)
            for row, tags in self.rows.items()]
        out = self.reporter.reader_event(ChipsScanned(reader="r", at=self.now, readings=tuple(readings)))
        return [item for item in out if isinstance(item, ZoneChanged) and item.zone.startswith("tray.")]


def test_the_tray_is_reported_once_read_whole_then_only_when_it_changes() -> None:
    edge = Edge()
    assert edge.scan() == [] and edge.scan() == []
    first = edge.scan()  # the third identical scan: whole
    assert [(item.zone, len(item.chips), item.total_cents) for item in first] == [
        ("tray.row1", 30, 75000), ("tray.row2", 30, 15000)]
    assert edge.scan() == []  # unchanged
    taken = edge.rows["tray.row1"].pop()
    assert edge.scan() == [] and edge.scan() == []
    [change] = edge.scan()
    assert change.zone == "tray.row1" and taken.uid not in {chip.uid for chip in change.chips}


def test_a_chip_missed_now_and_then_or_an_antenna_fault_is_never_reported() -> None:
    edge = Edge()
    for _ in range(3):
        edge.scan()
    flicker = edge.rows["tray.row2"][0].uid
    for index in range(12):
        assert edge.scan(missing=flicker if index % 2 else "") == []  # missed every other scan: not a change
    for _ in range(5):
        assert edge.scan(missing=flicker, status=AntennaStatus.OPEN) == []  # row 2 faulty: nothing said
    edge.reporter.reader_event(ReaderOffline(reader="r", at=edge.now, reason="unplugged", zones=ROWS))
    assert edge.scan() == [] and edge.scan() == [] and edge.scan() == []  # read again whole: still the same tray


def test_the_core_asking_for_a_read_gets_the_next_whole_one_even_unchanged() -> None:
    edge = Edge()
    for _ in range(3):
        edge.scan()
    edge.reporter.want_tray_read()
    [again] = edge.scan()
    assert again.zone == "tray.row1" and len(again.chips) == 30
    assert edge.scan() == []


def test_tray_rows_are_zones_of_the_antenna_map(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, feig("feig:///dev/serial/by-id/usb-FEIG-if00?mux=1",
                                              '11 = "box1", 12 = "box2", 21 = "tray.row1", 22 = "tray.row2"')),
                         environ={})
    assert config.zones[-2:] == ("tray.row1", "tray.row2")
    with pytest.raises(ConfigInvalidError) as caught:
        load_config(write(tmp_path, feig("feig:///dev/x?mux=1", '11 = "box1", 12 = "box2", 21 = "tray.row17"')),
                    environ={})
    assert "tray.row1 ... tray.row16" in str(caught.value)
