"""Start-up waits for a synchronised clock before the journal's first row; if it never comes, the rows say so.

The probe is injected (the machine's own clock state does not matter here); the system probe's reading
of timedatectl is tested with a stand-in `timedatectl` on PATH.
"""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from table_runtime.commands.run import serve
from table_runtime.config import ClockConfig, TableConfig, load_config
from table_runtime.runtime.assembly import AssembledTable
from table_runtime.runtime.clock_sync import follow_clock, system_clock_synchronised, wait_for_clock
from tests.deploy.support import demo_table

pytestmark = pytest.mark.timeout(60)


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def answers(*states: bool | None) -> Callable[[], bool | None]:
    remaining = list(states)
    return lambda: remaining.pop(0) if len(remaining) > 1 else remaining[0]


async def test_waits_until_the_clock_is_synchronised() -> None:
    fake = FakeTime()
    waits: list[float] = []
    state = await wait_for_clock(answers(False, False, True), within=120, on_wait=waits.append,
                                 monotonic=fake.monotonic, sleep=fake.sleep, poll=1.0)
    assert state is True
    assert fake.slept == [1.0, 1.0] and waits == [120.0, 119.0]


async def test_gives_up_after_the_wait_and_says_not_synchronised() -> None:
    fake = FakeTime()
    state = await wait_for_clock(answers(False), within=2.5, monotonic=fake.monotonic, sleep=fake.sleep, poll=1.0)
    assert state is False and sum(fake.slept) == pytest.approx(2.5)


async def test_does_not_wait_when_nobody_can_tell() -> None:
    fake = FakeTime()
    assert await wait_for_clock(answers(None), within=120, monotonic=fake.monotonic, sleep=fake.sleep) is None
    assert fake.slept == []


async def test_follow_reports_once_ntp_caught_up() -> None:
    fake = FakeTime()
    calls: list[str] = []
    await follow_clock(answers(False, False, True), lambda: calls.append("synchronised"), sleep=fake.sleep, every=10)
    assert calls == ["synchronised"] and fake.slept == [10, 10]


@pytest.mark.parametrize(("output", "code", "expected"), [("yes", 0, True), ("no", 0, False),
                                                          ("", 1, None), ("maybe", 0, None)])
def test_the_system_probe_reads_timedatectl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str,
                                            code: int, expected: bool | None) -> None:
    tool = tmp_path / "timedatectl"
    tool.write_text(f"#!/bin/sh\n[ \"$*\" = 'show --property=NTPSynchronized --value' ] || exit 9\n"
                    f"echo '{output}'\nexit {code}\n", encoding="utf-8")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert system_clock_synchronised(tmp_path / "no-flag") is expected
    flag = tmp_path / "synchronized"
    flag.touch()  # systemd-timesyncd's flag wins: it is there only once the clock was synchronised
    assert system_clock_synchronised(flag) is True
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert system_clock_synchronised(tmp_path / "no-flag") is None  # no timedatectl at all


def status_types(table: AssembledTable) -> list[str]:
    return [str(entry.body["type"]) for entry in table.journal.entries(kinds=("status",))]


async def run_table(config: TableConfig, probe: Callable[[], bool | None],
                    until: Callable[[AssembledTable], bool]) -> list[str]:
    """serve() the table until `until(table)` holds, stop it; the status rows it journaled."""
    tables: list[AssembledTable] = []
    server = asyncio.create_task(serve(config, clock_probe=probe, clock_poll_seconds=0.01,
                                       clock_follow_seconds=0.01, on_assembled=tables.append))
    try:
        async with asyncio.timeout(30):
            while not (tables and until(tables[0])):
                assert not server.done(), server.result()
                await asyncio.sleep(0.02)
        types = status_types(tables[0])
        tables[0].app.stop("test")
        assert await server == 0
    finally:
        server.cancel()
    return types


async def test_a_table_whose_clock_never_synchronised_marks_its_rows(tmp_path: Path) -> None:
    config = load_config(demo_table(tmp_path), environ={})
    config = config.replace(clock=ClockConfig(sync_wait_seconds=0.2))
    synchronised = False
    asked_before_journal: list[bool] = []

    def probe() -> bool:
        asked_before_journal.append(not config.journal_path.exists())
        return synchronised

    def once_marked(table: AssembledTable) -> bool:
        nonlocal synchronised
        synchronised = "ClockUnsynchronised" in status_types(table)  # NTP catches up after the start
        return "ClockSynchronised" in status_types(table)

    types = await run_table(config, probe, once_marked)
    assert asked_before_journal[0] and sum(asked_before_journal) >= 2  # it waited with no journal written
    assert types[:2] == ["Started", "ClockUnsynchronised"]  # every row between these two and the next ...
    assert types.index("ClockSynchronised") > 1  # ... ClockSynchronised has an untrusted time


async def test_a_table_waits_for_the_clock_then_plays_with_trusted_times(tmp_path: Path) -> None:
    config = load_config(demo_table(tmp_path), environ={})
    config = config.replace(clock=ClockConfig(sync_wait_seconds=30))
    asked: list[bool] = []

    def probe() -> bool:
        asked.append(config.journal_path.exists())
        return len(asked) >= 3  # synchronised at the third look

    types = await run_table(config, probe, lambda table: table.controller.devices["shoe"] == "online")
    assert asked == [False, False, False]  # no journal before the clock was trusted
    assert types[0] == "Started" and not {"ClockUnsynchronised", "ClockSynchronised"} & set(types)
