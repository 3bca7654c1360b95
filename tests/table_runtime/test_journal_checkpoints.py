"""Checkpoints: a start from one is the start from the first row; a forged row, a forged checkpoint, an empty or a
cut file are refused at the start, or found by the background audit, which stops play (docs/journal.md)."""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from simulators.fast_table import FastTable
from table_runtime.errors import JournalError
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, JournalBrokenError, journal_path, verify_file
from table_runtime.journal.checkpoints import seal_of
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.journal_audit import audit_journal
from table_runtime.runtime.recall import recall_rounds
from tests.polling import until

RULES, LIMITS = profile("fr-casino"), TableLimits()


def controller_on(journal: Journal, *, checkpoint_rows: int = 150) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal,
                           clock=lambda: 1_700_000_000.0 + next(ticks), checkpoint_rows=checkpoint_rows)


def played(path: Path, rounds: int, *, checkpoint_rows: int = 150, seed: int = 3) -> Path:
    """A journal of `rounds` rounds of the fast demo table, dealer errors (alarms, UNDO, VOID) included."""
    with Journal.open(path) as journal:
        FastTable(controller_on(journal, checkpoint_rows=checkpoint_rows), seed=seed, error_rate=0.15).run(rounds)
    return path


def sql(path: Path, statement: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(statement, args).fetchall()


def checkpoint_seqs(path: Path) -> list[int]:
    return [seq for (seq,) in sql(path, "SELECT seq FROM checkpoints ORDER BY seq")]


def forge_card(path: Path, *, before: int | None = None, after: int = 0) -> int:
    """Change one dealt card in SQL (5S -> KS, or the first card found after `after` and before `before`), as
    someone with the file would; the row's hash is left as it was. The seq changed."""
    rows = sql(path, "SELECT seq, body FROM entries WHERE kind = 'input' AND body LIKE '%\"CardDrawn\"%' "
                     "AND seq > ? AND seq < ? ORDER BY seq", after, before or 10**12)
    seq, body = next(((seq, body) for seq, body in rows if '"5S"' in body), rows[len(rows) // 2])
    card = json.loads(body)["card"]
    forged = body.replace(f'"{card}"', '"KS"' if card != "KS" else '"QS"')
    sql(path, "UPDATE entries SET body = ? WHERE seq = ?", forged, seq)
    return int(seq)


@pytest.fixture(scope="module")
def journal_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played(journal_path(tmp_path_factory.mktemp("played")), 50)


@pytest.fixture
def copy(journal_file: Path, tmp_path: Path) -> Path:
    target = journal_path(tmp_path)
    shutil.copy(journal_file, target)
    return target


def test_a_start_from_a_checkpoint_is_the_start_from_the_first_row(copy: Path, tmp_path: Path) -> None:
    assert len(checkpoint_seqs(copy)) >= 5
    whole = journal_path(tmp_path / "whole")
    whole.parent.mkdir()
    shutil.copy(copy, whole)
    sql(whole, "DELETE FROM checkpoints")  # this copy replays from the first row
    with Journal.open(copy) as fast, Journal.open(whole) as slow:
        assert fast.start_checkpoint is not None and slow.start_checkpoint is None
        assert fast.last_seq - fast.start_checkpoint.seq < 150 + 200  # the interval and at most one round
        from_checkpoint, from_first = controller_on(fast), controller_on(slow)
        assert from_checkpoint.snapshot() == from_first.snapshot()
        assert from_checkpoint.alarms.active == from_first.alarms.active
        assert from_checkpoint.alarms.counts == from_first.alarms.counts
        assert from_checkpoint.core.chips == from_first.core.chips
        assert (recall_rounds(fast, last=10)
                == recall_rounds(slow, last=10))
        FastTable(from_checkpoint, seed=9, error_rate=0.15).run(5)
        FastTable(from_first, seed=9, error_rate=0.15).run(5)  # the same play on both: the same rows
        rows = [[(e.kind, e.body) for e in journal.entries(fast.start_checkpoint.seq)] for journal in (fast, slow)]
        assert rows[0] == rows[1]


def test_an_old_journal_without_checkpoints_opens_replays_and_gets_them_going_forward(copy: Path) -> None:
    sql(copy, "DROP TABLE checkpoints")
    with Journal.open(copy) as journal:
        assert journal.start_checkpoint is None  # the whole chain was verified
        controller = controller_on(journal)
        FastTable(controller, seed=4, error_rate=0.15).run(10)
    assert checkpoint_seqs(copy) and verify_file(copy).ok
    with Journal.open(copy) as journal:
        assert journal.start_checkpoint is not None


def test_a_forged_row_after_the_checkpoint_is_refused_at_the_start(copy: Path) -> None:
    seq = forge_card(copy, after=checkpoint_seqs(copy)[-1])
    with pytest.raises(JournalBrokenError) as refused:
        Journal.open(copy)
    assert refused.value.seq == seq and f"row {seq}: hash does not match its contents (altered)" in str(refused.value)


def test_a_forged_row_before_the_checkpoint_stops_play_from_the_background_audit(copy: Path) -> None:
    seq = forge_card(copy, before=checkpoint_seqs(copy)[-1])
    with Journal.open(copy) as journal:  # the start verified only the rows after the checkpoint
        controller = controller_on(journal)
        before = controller.snapshot()

        async def play() -> None:
            app = TableApp(controller)
            running = asyncio.create_task(app.run())
            await until(lambda: bool(controller.halted), "the audit stops play", seconds=20)
            app.stop()
            await running

        asyncio.run(play())
        alarm = controller.alarms.active[-1]
        assert alarm["kind"] == AlarmKind.JOURNAL_BROKEN and alarm["amounts"] == {"row": seq}
        assert f"row {seq}" in alarm["message"] and alarm["rule"].startswith(citations.TABLE_CHECK)
        assert controller.press("NEXT", {}, role="dealer", source="display")["ok"] is False
        assert controller.snapshot()["seq"] > before["seq"]  # the alarm is journaled
    with pytest.raises(JournalBrokenError):  # and a restart from the first row refuses the journal
        sql(copy, "DELETE FROM checkpoints")
        Journal.open(copy)


def _latest_checkpoint(path: Path) -> tuple[int, str, str]:
    seq, chain_hash, state = sql(path, "SELECT seq, chain_hash, state FROM checkpoints ORDER BY seq DESC LIMIT 1")[0]
    return int(seq), str(chain_hash), str(state)


def _forged_state(state: str) -> str:
    value = json.loads(state)
    value["core"]["table"]["rounds_started"] += 3
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def test_a_forged_checkpoint_is_refused_at_the_start(copy: Path) -> None:
    seq, _, state = _latest_checkpoint(copy)
    sql(copy, "UPDATE checkpoints SET state = ? WHERE seq = ?", _forged_state(state), seq)
    with pytest.raises(JournalBrokenError, match=f"checkpoint at row {seq}: its seal does not match"):
        Journal.open(copy)
    assert verify_file(copy).first_bad_seq == seq


def test_a_checkpoint_moved_to_another_row_is_refused_at_the_start(copy: Path) -> None:
    seq, _, state = _latest_checkpoint(copy)
    other = sql(copy, "SELECT hash FROM entries WHERE seq = ?", seq - 1)[0][0]
    sql(copy, "UPDATE checkpoints SET chain_hash = ?, seal = ? WHERE seq = ?", other, seal_of(seq, other, state), seq)
    with pytest.raises(JournalBrokenError, match="the row's hash is not the one the checkpoint sealed"):
        Journal.open(copy)


def test_a_checkpoint_forged_with_its_seal_is_found_by_the_audit(copy: Path) -> None:
    seq, chain_hash, state = _latest_checkpoint(copy)
    forged = _forged_state(state)
    sql(copy, "UPDATE checkpoints SET state = ?, seal = ? WHERE seq = ?", forged, seal_of(seq, chain_hash, forged), seq)
    with Journal.open(copy) as journal:  # a consistent seal: the start cannot tell
        controller = controller_on(journal)
        asyncio.run(audit_journal(controller, chunk_rows=100, pause_s=0))
        assert controller.halted and "checkpoint forged" in controller.halted
        assert controller.alarms.active[-1]["amounts"] == {"row": seq}


def test_an_intact_journal_passes_the_audit(copy: Path) -> None:
    with Journal.open(copy) as journal:
        controller = controller_on(journal)
        asyncio.run(audit_journal(controller, chunk_rows=100, pause_s=0))
        assert not controller.halted
        assert all(alarm["kind"] != AlarmKind.JOURNAL_BROKEN for alarm in controller.alarms.active)


def test_an_empty_file_is_never_taken_for_a_new_journal(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    path.write_bytes(b"")
    with pytest.raises(JournalError, match=r"journal\.db: the journal file is empty \(0 bytes\)"):
        Journal.open(path)
    assert path.stat().st_size == 0  # nothing written over it


def test_a_truncated_file_is_refused(copy: Path) -> None:
    size = copy.stat().st_size
    with open(copy, "r+b") as handle:
        handle.truncate(size // 2)
    with pytest.raises(JournalError, match=r"journal\.db: the journal file is truncated: \d+ bytes where its header"):
        Journal.open(copy)


def test_recall_refuses_a_row_forged_in_the_rounds_it_replays(copy: Path) -> None:
    """Recall replays from the checkpoint before its first round: the rows from there are checked, those the open
    did not walk (older than the newest checkpoint) included."""
    with Journal.open(copy) as journal:
        first = journal.last_round_starts(10)[0][0]
        checkpoint = journal.checkpoint_before(first)
        newest = journal.start_checkpoint
    assert checkpoint is not None and newest is not None and checkpoint.seq < newest.seq
    seq = forge_card(copy, after=checkpoint.seq, before=newest.seq)
    with Journal.open(copy) as journal, pytest.raises(JournalBrokenError, match=f"row {seq}: hash does not match"):
        recall_rounds(journal, last=10)
