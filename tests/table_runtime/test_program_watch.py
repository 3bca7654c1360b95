"""The installed program checked by the running table (runtime/program_watch.py): before it deals, every
`check_hours` on its clock, and on demand from the supervisor's display with a verifier's seed.

A signed installation (tests/release/installation.py) checked by the real `TableApp` (the start's check in its
process of its own), the real display over its WebSocket, a real journal: one byte changed in a file is a halting
alarm naming the file, journaled with the check's `verification` row, and a restart is still stopped.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import aiohttp
import pytest

from table_runtime.core.significant_events import CODES, significant_events
from table_runtime.display.server import DisplayServer
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.release.manifest import Manifest, manifest_dir, seeded_digest
from table_runtime.release.verification import ProgramCheck, verify_installation
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.program_watch import ProgramWatch
from tests.display.helpers import ask
from tests.release.installation import SETTLEMENT, change_one_byte, signed_installation

pytestmark = pytest.mark.timeout(60)
PIN = "2468"


def controller_on(journal: Journal) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                           clock=lambda: 1_700_000_000.0 + next(ticks))


def verifications(journal: Journal) -> list[dict[str, object]]:
    return [dict(entry.body) for entry in journal.entries() if entry.kind == "verification"]


async def start_and_stop(app: TableApp) -> None:
    """Run the app until its start is over (the check and the first snapshot published), then stop it."""
    running = asyncio.create_task(app.run())
    await app.wait_for_change(30)
    app.stop("test over")
    async with asyncio.timeout(10):
        await running


async def test_the_start_checks_the_program_and_a_changed_byte_stops_play_naming_the_file(tmp_path: Path) -> None:
    prefix, key = signed_installation(tmp_path)
    path = journal_path(tmp_path / "data")
    with Journal.open(path) as journal:
        controller = controller_on(journal)
        await start_and_stop(TableApp(controller, program_watch=ProgramWatch(controller, public_key=key,
                                                                             prefix=prefix)))
        [intact] = verifications(journal)
        assert intact["intact"] is True and intact["by"] == "start" and intact["files"] == 4
        assert not controller.halted

    change_one_byte(prefix / SETTLEMENT)
    with Journal.open(path) as journal:
        controller = controller_on(journal)
        await start_and_stop(TableApp(controller, program_watch=ProgramWatch(controller, public_key=key,
                                                                             prefix=prefix)))
        found = verifications(journal)[-1]
        assert found["intact"] is False and found["changed"] == [SETTLEMENT]
        [alarm_id] = controller.alarms.active_of_kind(AlarmKind.PROGRAM_NOT_AS_RELEASED)
        alarm = controller.alarms.get(alarm_id)
        assert alarm is not None and SETTLEMENT in alarm.message and dict(alarm.amounts)["changed"] == 1
        assert "play is stopped" in controller.halted
        refused = controller.press("DEAL", {}, role="dealer", source="display")
        assert refused["ok"] is False and "play is stopped" in refused["message"]
        rows = [entry.kind for entry in journal.entries()]
        last = len(rows) - 1 - rows[::-1].index("verification")
        assert rows[last + 1] == "alarm"  # one transaction: the check's row, then its alarm
        events = significant_events((entry.seq, entry.ts, entry.kind, entry.body) for entry in journal.entries())
        checks = [(event.code, event.detail["by"], event.detail.get("file")) for event in events
                  if event.name.startswith("program_")]
        assert checks == [(CODES["program_verified"], "start", None),
                          (CODES["program_not_as_released"], "start", SETTLEMENT)]

    with Journal.open(path) as journal:  # the result and the halt survive a power loss: a restart is still stopped
        again = controller_on(journal)
        assert again.halted == controller.halted
        assert again.press("ACK_ALARM", {"id": alarm_id}, role="dealer", source="display")["ok"] is False
        assert again.press("ACK_ALARM", {"id": alarm_id}, role="supervisor", source="display")["ok"] is True
        assert not again.halted


class Stop(Exception):
    """Ends the schedule's loop in the test."""


async def test_the_schedule_checks_every_n_hours_on_its_clock_and_raises_while_running(tmp_path: Path) -> None:
    prefix, key = signed_installation(tmp_path)
    now = [5000.0]
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # the clock moves by what the loop waits: no time passes
        waits.append(seconds)
        now[0] += seconds
        if len(waits) == 2:
            change_one_byte(prefix / SETTLEMENT)  # while the table runs, between the second and third checks
        if len(waits) == 4:
            raise Stop

    async def in_a_thread(prefix: Path, key: Path, seed: bytes | None) -> ProgramCheck:
        return await asyncio.to_thread(verify_installation, prefix, key, seed)

    with Journal.open(journal_path(tmp_path / "data")) as journal:
        controller = controller_on(journal)
        watch = ProgramWatch(controller, public_key=key, prefix=prefix, check_hours=8, monotonic=lambda: now[0],
                             sleep=sleep, checker=in_a_thread)
        with pytest.raises(Stop):
            await watch.run()
        assert waits == [8 * 3600.0] * 4
        rows = verifications(journal)
        assert [(row["by"], row["intact"]) for row in rows] == [("schedule", True), ("schedule", False),
                                                                  ("schedule", False)]
        assert rows[1]["changed"] == [SETTLEMENT]
        # one alarm for the file, not one per check that finds it again
        assert len(controller.alarms.active_of_kind(AlarmKind.PROGRAM_NOT_AS_RELEASED)) == 1
        assert controller.halted


async def test_the_supervisor_asks_from_the_display_with_a_seed(tmp_path: Path) -> None:
    prefix, key = signed_installation(tmp_path)
    with Journal.open(journal_path(tmp_path / "data")) as journal:
        controller = controller_on(journal)
        watch = ProgramWatch(controller, public_key=key, prefix=prefix)
        app = TableApp(controller, program_watch=watch)
        async with (
            DisplayServer(app, port=0, supervisor_pin=PIN, verifier=watch) as server,
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{server.url}ws") as ws,
        ):
            wrong = await ask(ws, {"type": "verify", "pin": "1111", "seed": "00ff"})
            assert wrong["ok"] is False and wrong["reason"] == "wrong_pin"
            bad = await ask(ws, {"type": "verify", "pin": PIN, "seed": "xyz"})
            assert bad["ok"] is False and bad["reason"] == "bad_args"
            assert verifications(journal) == []
            await ws.send_json({"type": "verify", "pin": PIN, "seed": "c0ffee", "request": 7})
            async with asyncio.timeout(60):  # a check in its own process: seconds on a loaded machine
                reply = await ws.receive_json()
                while reply.get("request") != 7:
                    reply = await ws.receive_json()
        assert reply["type"] == "verification" and reply["ok"] is True
        result = reply["result"]
        manifest = Manifest.parse((manifest_dir(prefix) / "manifest.sha256").read_bytes())
        assert result["hmac_sha256"] == seeded_digest(prefix, manifest, bytes.fromhex("c0ffee"))
        assert result["manifest_sha256"] == manifest.digest and result["seed"] == "c0ffee"
        [row] = verifications(journal)
        assert row["by"] == "supervisor" and row["hmac_sha256"] == result["hmac_sha256"]
        assert result["seq"] == journal.last_seq


async def test_a_manifest_signed_by_another_key_halts_naming_the_manifest(tmp_path: Path) -> None:
    prefix, _ = signed_installation(tmp_path)
    _, other = signed_installation(tmp_path / "other")
    with Journal.open(journal_path(tmp_path / "data")) as journal:
        controller = controller_on(journal)
        result = await ProgramWatch(controller, public_key=other, prefix=prefix).verify(by="start")
        assert result["intact"] is False and "does not verify" in str(result["problem"])
        [alarm_id] = controller.alarms.active_of_kind(AlarmKind.PROGRAM_NOT_AS_RELEASED)
        alarm = controller.alarms.get(alarm_id)
        assert alarm is not None and "share/smart-blackjack-table/manifest.sha256" in alarm.message
