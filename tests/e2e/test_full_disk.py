"""`table-runtime run` with its data directory on a small real tmpfs that fills up while it plays.

The card whose commit fails is not acknowledged to the shoe; the process keeps running without a
traceback, the display's snapshot shows the `journal_unwritable` alarm, and once space is freed play resumes
by itself: the cards the shoe kept resending are journaled once each and the alarm is cleared. A restart on
a card that is still full exits 1 with one line naming the cause ("cannot write: disk full"), never
"not a journal", never a traceback. Cards drawn back to back onto a card with a few KB left: the alarm is on
every snapshot for the whole outage, however small a row still fits (docs/journal.md "When an outage
ends"). The shoe lives in this test's process (tests/e2e/external_shoe.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.shoe import Ack, Frame
from simulators.mosquitto import free_port
from simulators.shoe import SimulatedShoe
from simulators.shoe_firmware import GATE_RESERVE, GateLockedError
from table_runtime.core.significant_events import significant_events
from table_runtime.journal import Journal, journal_path
from tests.e2e.external_shoe import RuntimeProcess, dealt, external_shoe_config, loaded, shoe_inputs, wait_until
from tests.small_disk import SmallDisk, small_disk

pytestmark = pytest.mark.timeout(240)
KIND = "journal_unwritable"
GATE = "shoe_gate_locked"


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[SmallDisk]:
    with small_disk(tmp_path / "card", size="8m") as mounted:
        yield mounted


def acks_received(shoe: SimulatedShoe) -> int:
    return sum(isinstance(command, Ack) for command in shoe.commands_received)


def outage_alarms(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    return [alarm for alarm in snapshot["alarms"] if alarm["kind"] == KIND]


def draw_until_refused(shoe: SimulatedShoe, runtime: RuntimeProcess, drawn: list[str]) -> dict[str, Any]:
    """Draw cards one at a time (each appended to `drawn`), each awaited, until the table raises the outage alarm
    instead of taking one; the snapshot that shows it. The write-ahead log may hold a few more rows before the card
    refuses one: 60 cards at most."""
    snapshot: dict[str, Any] = {}
    for _ in range(60):
        drawn.append(shoe.draw().code)
        snapshot = runtime.wait_for("the card or the alarm", lambda s: bool(
            outage_alarms(s) or s["shoe"]["cards_dealt"] >= len(drawn)))
        if outage_alarms(snapshot):
            break
    return snapshot


@pytest.mark.slow
def test_a_full_card_stops_play_with_an_alarm_and_freeing_space_resumes_it(tmp_path: Path, disk: SmallDisk) -> None:
    port = free_port()
    data = disk.path / "data"
    with SimulatedShoe(seed=5, announce=True) as shoe:
        config = external_shoe_config(tmp_path, data_dir=data, shoe_link=shoe.link, port=port)
        runtime = RuntimeProcess(config, port)
        try:
            runtime.wait_for("the shoe online and loaded", loaded)
            drawn = [shoe.draw().code for _ in range(2)]
            runtime.wait_for("two cards", dealt(2))
            disk.fill()
            snapshot = draw_until_refused(shoe, runtime, drawn)
            alarm = outage_alarms(snapshot)[0]
            assert "journal.db: cannot write: disk full (" in alarm["message"], alarm
            refused_at = snapshot["shoe"]["cards_dealt"]
            assert refused_at < len(drawn)
            drawn.append(shoe.draw().code)  # a card during the outage: not taken either
            acks = acks_received(shoe)
            wait_until("the shoe resending (its duplicates acknowledged only up to what was journaled)",
                       lambda: acks_received(shoe) >= acks + 3)
            snapshot = runtime.wait_for("the alarm still on", lambda s: bool(outage_alarms(s)))
            assert snapshot["shoe"]["cards_dealt"] == refused_at
            assert shoe.firmware.unacknowledged >= len(drawn) - refused_at  # the shoe holds them all
            assert runtime.process.poll() is None and "Traceback" not in runtime.log

            disk.free()
            snapshot = runtime.wait_for("play resumed", lambda s: not outage_alarms(s) and
                                        s["shoe"]["cards_dealt"] == len(drawn))
            wait_until("every card acknowledged", lambda: shoe.firmware.unacknowledged == 0)
            drawn.append(shoe.draw().code)
            runtime.wait_for("the next card", dealt(len(drawn)))
        finally:
            code = runtime.terminate()
        assert code == 0, runtime.log
        assert "Traceback" not in runtime.log, runtime.log
        assert [body["card"] for body in shoe_inputs(data) if body["type"] == "CardDrawn"] == drawn
        with Journal.open(journal_path(data)) as journal:
            rows = list(journal.entries(kinds=("alarm", "alarm_cleared", "status")))
        raised = [row for row in rows if row.kind == "alarm" and row.body["kind"] == KIND]
        assert len(raised) == 1 and raised[0].body["id"] == raised[0].seq  # journaled once writing worked
        assert any(row.kind == "alarm_cleared" and row.body == {"type": "AlarmCleared", "schema_version": 1,
                                                               "id": raised[0].seq, "by": "journal"} for row in rows)
        assert any(row.body.get("type") == "JournalWritable" and row.body["refused_inputs"] >= 1 for row in rows)
        names = [event.name for event in significant_events((row.seq, row.ts, row.kind, row.body) for row in rows)]
        assert names.index("journal_unwritable") < names.index("journal_writable")  # significant events 500, 501

        disk.fill()
        refused = RuntimeProcess(config, port)
        code = refused.wait_exit(60)
        lines = refused.log.strip().splitlines()
        errors = [line for line in lines if "error" in line.lower()]
        assert code == 1, refused.log
        assert len(errors) == 1 and "journal.db: cannot write: disk full (" in errors[0], refused.log
        assert "not a journal" not in refused.log and "Traceback" not in refused.log


def test_a_shoe_whose_buffer_fills_during_the_outage_locks_its_gate_and_loses_no_card(tmp_path: Path,
                                                                                      disk: SmallDisk) -> None:
    """During the outage the table acknowledges no card, so the shoe holds them all; once its buffer is full
    (32 events here) it locks its gate instead of letting out cards it could not send again (docs/protocols/shoe.md
    §3): the dealer gets no card and the display shows why (`shoe_gate_locked`, held while the journal cannot be
    written). Space freed, the table journals every card the shoe held, the gate unlocks and play goes on: each
    card that left the shoe is journaled once, in order."""
    port = free_port()
    data = disk.path / "data"
    with SimulatedShoe(seed=5, announce=True, buffer_size=32) as shoe:
        config = external_shoe_config(tmp_path, data_dir=data, shoe_link=shoe.link, port=port)
        runtime = RuntimeProcess(config, port)
        try:
            runtime.wait_for("the shoe online and loaded", loaded)
            drawn = [shoe.draw().code]
            runtime.wait_for("a card", dealt(1))
            disk.fill()
            snapshot = draw_until_refused(shoe, runtime, drawn)
            refused_at = snapshot["shoe"]["cards_dealt"]
            with pytest.raises(GateLockedError, match=r"resend buffer is full \(25 of 32 events unacknowledged"):
                for _ in range(32):
                    drawn.append(shoe.draw().code)
            assert shoe.firmware.unacknowledged == 32 - GATE_RESERVE + 1 and shoe.firmware.cards_drawn == len(drawn)
            snapshot = runtime.wait_for("the gate's alarm", lambda s: any(a["kind"] == GATE for a in s["alarms"]))
            (alarm,) = [alarm for alarm in snapshot["alarms"] if alarm["kind"] == GATE]
            assert alarm["amounts"] == {"unacknowledged": 25, "capacity": 32} and alarm["id"] < 0  # held in memory
            assert snapshot["shoe"]["cards_dealt"] == refused_at and outage_alarms(snapshot)
            with pytest.raises(GateLockedError):
                shoe.draw()  # still locked: nothing was acknowledged

            disk.free()
            runtime.wait_for("play resumed", lambda s: not outage_alarms(s) and s["shoe"]["cards_dealt"] == len(drawn))
            wait_until("every card acknowledged and the gate unlocked",
                       lambda: shoe.firmware.unacknowledged == 0 and not shoe.firmware.buffer_locked)
            drawn.append(shoe.draw().code)
            runtime.wait_for("the next card", dealt(len(drawn)))
        finally:
            code = runtime.terminate()
        assert code == 0 and "Traceback" not in runtime.log, runtime.log
        assert [body["card"] for body in shoe_inputs(data) if body["type"] == "CardDrawn"] == drawn
        with Journal.open(journal_path(data)) as journal:
            gate_rows = [row.body for row in journal.entries(kinds=("alarm",)) if row.body["kind"] == GATE]
        assert len(gate_rows) == 1 and gate_rows[0]["amounts"] == {"unacknowledged": 25, "capacity": 32}


@pytest.mark.slow
def test_the_alarm_stays_on_for_the_whole_outage_and_every_card_is_journaled_once(tmp_path: Path) -> None:
    """Cards drawn back to back onto a card with 24 KB left: the step the journal refuses leaves its half-written
    frames in the write-ahead log, where a small row fits although the next card does not (the alarm used to be
    journaled and cleared there at once, then play stayed stopped with no alarm and no log line). The alarm is on
    every snapshot until space is freed; then play resumes by itself and the shoe's cards are journaled once."""
    port = free_port()
    resent: list[int] = []  # the sequence of each event the shoe sent again (it resends what is not acknowledged)

    def written(frame: Frame, _: int) -> None:
        if frame.is_retransmit:
            resent.append(frame.sequence)

    with small_disk(tmp_path / "card", size="3m") as disk, SimulatedShoe(seed=5, announce=True,
                                                                         on_frame_written=written) as shoe:
        data = disk.path / "data"
        config = external_shoe_config(tmp_path, data_dir=data, shoe_link=shoe.link, port=port)
        config.write_text(config.read_text(encoding="utf-8") + "\n[journal]\nretry_seconds = 0.1\n", encoding="utf-8")
        runtime = RuntimeProcess(config, port)
        try:
            runtime.wait_for("the shoe online and loaded", loaded)
            drawn = [shoe.draw().code for _ in range(2)]
            runtime.wait_for("two cards", dealt(2))
            disk.fill(leave=24 * 1024)
            drawn += [shoe.draw().code for _ in range(60)]  # back to back: bursts, one of them refused
            snapshot = runtime.wait_for("the alarm", lambda s: bool(outage_alarms(s)))
            refused_at = snapshot["shoe"]["cards_dealt"]
            assert refused_at < len(drawn)
            polled = 0
            # Until the refused card (the oldest the shoe holds, once the ACKs in flight have landed) was resent 4
            # times, 500 ms apart: each resend and each retry (every 0.1 s) tried the journal again.
            while resent.count(shoe.firmware.oldest_held) < 4:
                snapshot = runtime.wait_for("a snapshot", lambda s: True)
                assert outage_alarms(snapshot), f"no {KIND} alarm while the journal refuses cards: {snapshot['alarms']}"
                assert snapshot["shoe"]["cards_dealt"] == refused_at
                polled += 1
                time.sleep(0.05)  # the display's pace, not a wait for anything
            assert polled >= 10
            assert shoe.firmware.unacknowledged >= len(drawn) - refused_at  # the shoe holds every refused card
            assert runtime.log.count("play stops") == 1, runtime.log  # once per outage, not a line per card

            disk.free()
            runtime.wait_for("play resumed by itself", lambda s: not outage_alarms(s) and
                             s["shoe"]["cards_dealt"] == len(drawn))
            wait_until("every card acknowledged", lambda: shoe.firmware.unacknowledged == 0)
            drawn.append(shoe.draw().code)
            snapshot = runtime.wait_for("the next card", dealt(len(drawn)))
            assert snapshot["shoe"]["cards_dealt"] == shoe.firmware.cards_drawn == len(drawn)
            assert "shoe_count_mismatch" not in [alarm["kind"] for alarm in snapshot["alarms"]]
        finally:
            code = runtime.terminate()
        assert code == 0 and "Traceback" not in runtime.log, runtime.log
        ended = [line for line in runtime.log.splitlines() if "the journal takes rows again after" in line]
        assert len(ended) == 1 and " inputs were refused meanwhile" in ended[0], runtime.log
        assert [body["card"] for body in shoe_inputs(data) if body["type"] == "CardDrawn"] == drawn  # once each
        with Journal.open(journal_path(data)) as journal:
            rows = list(journal.entries(kinds=("alarm", "alarm_cleared", "status")))
        raised = [row for row in rows if row.kind == "alarm" and row.body["kind"] == KIND]
        assert len(raised) == 1, raised  # one outage, journaled with its end
        cleared = [row for row in rows if row.kind == "alarm_cleared" and row.body["id"] == raised[0].seq]
        writable = [row for row in rows if row.body.get("type") == "JournalWritable"]
        assert [row.body["by"] for row in cleared] == ["journal"] and len(writable) == 1
        assert cleared[0].seq == writable[0].seq - 1  # in one transaction with the note that ends it
        assert writable[0].body["refused_inputs"] >= 4 and writable[0].body["unwritable_seconds"] >= 1.5
        assert not [row for row in rows if row.kind == "alarm" and row.body["kind"] == "shoe_count_mismatch"]
