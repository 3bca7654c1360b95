"""The alarms that exist to catch the dealer are acknowledged by the supervisor, not by the dealer alone.

The real `TableApp` behind the real display server, over its WebSocket: a dealer's ACK_ALARM of a
`past_posting` alarm is refused, a wrong PIN is refused, the right PIN clears it and the journal says
`by: supervisor`; an alarm that is not on the list is still the dealer's to acknowledge.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import aiohttp
import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import pytest

from table_runtime.core.alarm_ledger import SUPERVISOR_ACK_KINDS, needs_supervisor
from table_runtime.display.schema import SNAPSHOT_SCHEMA
from table_runtime.display.server import PIN_ATTEMPTS, DisplayServer
from table_runtime.game.events import Alarm
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from tests.display.helpers import ask

PIN = "2468"


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    opened = Journal.open(journal_path(tmp_path))
    try:
        yield opened
    finally:
        opened.close()


def _table(journal: Journal) -> tuple[TableController, TableApp]:
    controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                 journal=journal, clock=lambda: 1.0)
    return controller, TableApp(controller)


def _cleared(journal: Journal) -> list[dict[str, object]]:
    return [dict(entry.body) for entry in journal.entries() if entry.kind == "alarm_cleared"]


def _ack(alarm_id: int, pin: str | None = None) -> dict[str, object]:
    message: dict[str, object] = {"type": "command", "name": "ACK_ALARM", "args": {"id": alarm_id}}
    return message if pin is None else {**message, "pin": pin}


@pytest.mark.timeout(60)
async def test_past_posting_needs_the_supervisor_pin_and_a_reader_offline_does_not(journal: Journal) -> None:
    controller, app = _table(journal)
    posted = controller.raise_alarm(Alarm(kind="past_posting", message="box 3: 5.00 added outside a window",
                                          rule="table check, docs/rules.md « Past-posting »", box=3,
                                          amounts=(("expected_cents", 1000), ("seen_cents", 1500))))
    offline = controller.raise_alarm(Alarm(kind="reader_offline", message="reader A offline",
                                           rule="table check, docs/rules.md « Shoe integrity »"))
    snapshot = controller.snapshot()
    jsonschema.validate(snapshot, SNAPSHOT_SCHEMA)
    assert {alarm["id"]: alarm["supervisor"] for alarm in snapshot["alarms"]} == {posted: True, offline: False}

    async with (
        DisplayServer(app, port=0, supervisor_pin=PIN) as server,
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{server.url}ws") as ws,
    ):
        refused = await ask(ws, _ack(posted))
        assert refused["ok"] is False
        assert refused["message"] == f"alarm {posted} (past_posting) needs the supervisor PIN"

        wrong = await ask(ws, _ack(posted, "1111"))
        assert (wrong["ok"], wrong["message"]) == (False, "wrong supervisor PIN")
        assert posted in controller.alarms and _cleared(journal) == []

        accepted = await ask(ws, _ack(posted, PIN))
        assert (accepted["ok"], accepted["message"]) == (True, "acknowledged")
        assert posted not in controller.alarms

        by_dealer = await ask(ws, _ack(offline))
        assert (by_dealer["ok"], by_dealer["message"]) == (True, "acknowledged")

    assert [(row["id"], row["by"]) for row in _cleared(journal)] == [(posted, "supervisor"), (offline, "dealer")]
    assert controller.snapshot()["alarms"] == []


@pytest.mark.timeout(60)
async def test_wrong_pins_for_an_acknowledgement_lock_the_supervisor_commands(journal: Journal) -> None:
    """The same PIN check as VOID: five wrong PINs lock every supervisor command and raise an alarm,
    which itself needs the supervisor."""
    controller, app = _table(journal)
    now = [100.0]
    stolen = controller.raise_alarm(Alarm(kind="stolen_chip", message="zone box2: chip 04A1 stolen",
                                          rule="table check, docs/rules.md « Chip integrity »", box=2))
    async with (
        DisplayServer(app, port=0, supervisor_pin=PIN, clock=lambda: now[0]) as server,
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{server.url}ws") as ws,
    ):
        for _ in range(PIN_ATTEMPTS):
            now[0] += 10.0  # past the wait after each wrong PIN (pin_guard.py)
            assert (await ask(ws, _ack(stolen, "0000")))["ok"] is False
        now[0] += 1.0
        locked = await ask(ws, _ack(stolen, PIN))
        assert (locked["ok"], locked["message"]) == (
            False, "too many wrong PINs from this machine: ACK_ALARM locked for 59 s")
        void = await ask(ws, {"type": "command", "name": "VOID", "pin": PIN})
        assert void["ok"] is False and void["message"].startswith("too many wrong PINs from this machine: VOID locked")

        (pin_locked,) = [alarm for alarm in controller.snapshot()["alarms"] if alarm["kind"] == "supervisor_pin_locked"]
        assert pin_locked["supervisor"] is True
        assert (await ask(ws, _ack(int(pin_locked["id"]))))["ok"] is False  # not the dealer's to clear

        now[0] += 59.0
        assert (await ask(ws, _ack(stolen, PIN)))["ok"] is True
        assert (await ask(ws, _ack(int(pin_locked["id"]), PIN)))["ok"] is True
    assert [row["by"] for row in _cleared(journal)] == ["supervisor", "supervisor"]
    assert controller.snapshot()["alarms"] == []


def test_the_panel_and_the_runtime_refuse_a_dealer_acknowledgement_of_every_supervisor_kind(journal: Journal) -> None:
    """Whatever path a command takes into the runtime (display or panel), the dealer cannot clear these."""
    controller, app = _table(journal)
    for kind in sorted(SUPERVISOR_ACK_KINDS):
        assert needs_supervisor(kind)
        alarm_id = controller.raise_alarm(Alarm(kind=kind, message=kind, rule="test"))
        for source in ("display", "panel"):
            result = app.controller.press("ACK_ALARM", {"id": alarm_id}, role="dealer", source=source)
            assert (result["ok"], result["message"]) == (False, f"alarm {alarm_id} ({kind}) needs the supervisor PIN")
        assert app.controller.press("ACK_ALARM", {"id": alarm_id}, role="supervisor", source="display")["ok"] is True
    assert not needs_supervisor("bank_must_stand")
    assert _cleared(journal) and all(row["by"] == "supervisor" for row in _cleared(journal))
