"""The halt is a state of the core that every input consults, and the one fold replays it (core/alarm_ledger.py).

While a `journal_broken` alarm is open: a card out of the shoe is counted and held with a `play_stopped` alarm,
never dealt; every command but the clearing is refused; only the supervisor's clearing resumes play. A restart
replays the halt from the journal; the background audit of an honest journal with an open storm alarm stops
nothing.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from pathlib import Path

from simulators.fast_table import FastTable
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm, CardAssigned, CardHeld, Event
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.journal_audit import audit_journal

RULES, LIMITS = profile("fr-casino"), TableLimits()
ZONES = ("box1", "box1.behind", "box1.insurance", "box2", "box2.behind", "box2.insurance")


def controller_on(journal: Journal, *, checkpoint_rows: int = 150) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal,
                           clock=lambda: 1_700_000_000.0 + next(ticks), checkpoint_rows=checkpoint_rows)


def kinds(events: Sequence[Event]) -> list[str]:
    return [str(event.kind) for event in events if isinstance(event, Alarm)]


def test_a_broken_journal_holds_every_card_refuses_every_command_and_the_supervisor_resumes(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    with Journal.open(path) as journal:
        controller = controller_on(journal)
        FastTable(controller, seed=3, error_rate=0.0).run(3)
        controller.journal_broken(7, "row 7: hash does not match its contents (altered)")
        assert controller.halted and "row 7" in controller.halted
        dealt_before = controller.table.shoe.dealt
        seen_before = sum(controller.table.shoe.counts)

        controller.submit(ShoeShuffled(shoe_id="S9"), source="shoe")  # the shoe is what it is
        events = controller.draw(CardDrawn(card=Card.parse("TD")), source="shoe")
        assert not any(isinstance(event, CardAssigned) for event in events)  # not dealt
        assert any(isinstance(event, CardHeld) and event.reason == "play_stopped" for event in events)
        assert AlarmKind.PLAY_STOPPED in kinds(events)
        assert controller.table.shoe.shoe_id == "S9"
        assert sum(controller.table.shoe.counts) != seen_before or controller.table.shoe.dealt != dealt_before
        for command in ("DEAL", "NEXT", "CONFIRM", "UNDO", "DISCARD"):
            reply = controller.press(command, {}, role="dealer", source="display")
            assert reply["ok"] is False and "play is stopped" in reply["message"], (command, reply)
        [broken] = controller.alarms.active_of_kind(AlarmKind.JOURNAL_BROKEN)
        assert controller.press("ACK_ALARM", {"id": broken}, role="dealer", source="display")["ok"] is False
        halted_rows = journal.last_seq

    with Journal.open(path) as journal:  # the halt is in the journal: a restart is still stopped
        again = controller_on(journal)
        assert again.halted == controller.halted
        assert again.table.held_cards.codes == ["TD"]
        assert again.press("DEAL", {}, role="dealer", source="display")["ok"] is False
        reply = again.press("ACK_ALARM", {"id": broken}, role="supervisor", source="display")
        assert reply["ok"] is True and not again.halted
        assert again.press("DISCARD", {}, role="dealer", source="display")["ok"] is True
        assert again.table.held_cards.codes == []
        assert journal.last_seq > halted_rows


def test_an_open_storm_alarm_counted_over_a_checkpoint_passes_the_audit(tmp_path: Path) -> None:
    """Two refused presses between rounds count 2 on one open `command_refused` alarm (an `alarm_updated` row); a
    checkpoint sealed after them holds the count; the audit's fold of the rows before it agrees (it used to skip
    `alarm_updated` and call the honest journal forged)."""
    path = journal_path(tmp_path)
    with Journal.open(path) as journal:
        controller = controller_on(journal, checkpoint_rows=1)
        FastTable(controller, seed=5, error_rate=0.0).run(2)
        for _ in range(2):
            assert controller.press("NEXT", {}, role="dealer", source="panel", refusal_alarm=True)["ok"] is False
        [refused] = controller.alarms.active_of_kind(AlarmKind.COMMAND_REFUSED)
        assert controller.alarms.get(refused).count == 2  # type: ignore[union-attr]
        assert not controller.table.round_in_play
        controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),)), source="chips")
        assert controller.table.round_in_play  # the round started: a checkpoint just before its lock
        sealed = journal.checkpoints_until(journal.last_seq)[-1]
        assert any(alarm["id"] == refused and alarm["count"] == 2 for alarm in sealed.state["alarms"])

    with Journal.open(path) as journal:
        restarted = controller_on(journal, checkpoint_rows=1)
        assert journal.start_checkpoint is not None
        asyncio.run(audit_journal(restarted, chunk_rows=50, pause_s=0))
        assert not restarted.halted, restarted.halted
        assert not restarted.alarms.active_of_kind(AlarmKind.JOURNAL_BROKEN)
