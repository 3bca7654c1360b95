"""When a read of the chip tray is whole (core/tray.py): every row answered completely, the same chips over several
scans; an incomplete read, a chip moving or a row unread never makes one."""

from __future__ import annotations

import pytest

from table_runtime.core.tray import TrayReadJudge, TrayScan, tray_scan, tray_zones
from table_runtime.errors import ConfigError

ROWS = tray_zones(3)
FULL = {"tray.row1": frozenset({"a", "b"}), "tray.row2": frozenset({"c"}), "tray.row3": frozenset()}


def scan(at: float, rows: dict[str, frozenset[str]] | None = None,
         incomplete: frozenset[str] = frozenset()) -> TrayScan:
    return TrayScan(at=at, rows=FULL if rows is None else rows, incomplete=incomplete)


def test_the_same_chips_over_three_complete_scans_make_a_whole_read() -> None:
    judge = TrayReadJudge(ROWS, scans=3)
    assert judge.observe(scan(0.1)) is None
    assert judge.observe(scan(0.2)) is None
    read = judge.observe(scan(0.3))
    assert read is not None and read.uids == {"a", "b", "c"} and read.at == 0.3
    assert judge.observe(scan(0.4)) is not None  # still whole while nothing moves


def test_a_chip_moving_starts_the_count_again() -> None:
    judge = TrayReadJudge(ROWS, scans=3)
    judge.observe(scan(0.1))
    judge.observe(scan(0.2))
    moved = {**FULL, "tray.row1": frozenset({"a"}), "tray.row3": frozenset({"b"})}
    assert judge.observe(scan(0.3, moved)) is None
    assert judge.observe(scan(0.4, moved)) is None
    read = judge.observe(scan(0.5, moved))
    assert read is not None and read.rows["tray.row3"] == {"b"}


def test_a_chip_missed_in_one_scan_is_no_whole_read_of_a_tray_without_it() -> None:
    judge = TrayReadJudge(ROWS, scans=3)
    missed = {**FULL, "tray.row1": frozenset({"a"})}
    reads = [judge.observe(scan(at / 10, missed if at % 2 else None)) for at in range(1, 10)]
    assert reads == [None] * 9  # flickering: never whole, never a tray with a chip missing


def test_an_incomplete_row_or_a_row_unread_makes_no_whole_read() -> None:
    judge = TrayReadJudge(ROWS, scans=2)
    judge.observe(scan(0.1))
    assert judge.observe(scan(0.2, incomplete=frozenset({"tray.row2"}))) is None  # an antenna fault
    assert judge.observe(scan(0.3)) is None  # the count starts again
    assert judge.observe(scan(0.4)) is not None
    judge.unread()  # the reader went offline
    assert judge.observe(scan(0.5)) is None
    without_row3 = {row: uids for row, uids in FULL.items() if row != "tray.row3"}
    judge = TrayReadJudge(ROWS, scans=1)
    assert judge.observe(scan(0.6, without_row3)) is None  # a row that did not answer: not yet a scan of the tray
    assert judge.observe(scan(0.6, {"tray.row3": frozenset()})) is not None  # its reader answers: now it is


def test_the_quiet_time_is_a_span_of_identical_scans() -> None:
    judge = TrayReadJudge(ROWS, scans=2, quiet_seconds=1.0)
    assert [judge.observe(scan(at)) is not None for at in (0.0, 0.5, 0.9, 1.0)] == [False, False, False, True]


def test_a_scan_of_a_reader_event_keeps_the_tray_rows_only() -> None:
    made = tray_scan(1.0, [("box1", ["x"], True), ("tray.row1", ["a"], True), ("tray.row2", [], False)])
    assert made.rows == {"tray.row1": {"a"}, "tray.row2": frozenset()} and made.incomplete == {"tray.row2"}


def test_a_bad_judge_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError):
        TrayReadJudge((), scans=3)
    with pytest.raises(ConfigError):
        TrayReadJudge(ROWS, scans=0)
