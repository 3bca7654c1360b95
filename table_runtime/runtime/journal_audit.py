"""The background audit of the rows a start did not verify, in a process of its own, off the table's interpreter.

A start verified the chain from its checkpoint to the head and replayed the rows after it (controller.py).
Once the table plays, this task checks what is older (docs/journal.md "Checkpoints"):

1. the chain from the first row to the start's checkpoint, and each older checkpoint's seal and row
   (journal/audit.py), `chunk_rows` rows at a time: a changed, deleted or reordered row is found first;
2. every checkpoint's state against the replay of the rows before it, from the checkpoint before (a state
   forged together with its seal);
3. the rated sessions' checkpoints (journal/rating_checkpoints.py) against the one rating fold of the rows before
   them, from the first row, and the models kept beside them against the models computed again.

All of it runs in a process of its own (`spawn`, the lowest CPU priority), which reads the journal on a
read-only connection: its replays never hold the runtime's interpreter while a card waits for the loop (in the
runtime's threads the audit of a million rows made the loop late by tens of milliseconds). The runtime only waits
for its answer; a break stops play with a `journal_broken` alarm (`TableController.journal_broken`). It keeps
nothing of what it proved between starts: every start proves the rows again (docs/journal.md "The audit").
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import sqlite3
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

from table_runtime.core.core_state import checkpoint_state
from table_runtime.core.row_kinds import DERIVED_KINDS
from table_runtime.core.terms import TableTerms
from table_runtime.errors import JournalError, TableError
from table_runtime.journal import Checkpoint
from table_runtime.journal.audit import CHUNK_ROWS, AuditBreak, ChainAudit, ReadOnlyRows
from table_runtime.journal.checkpoints import encode_state
from table_runtime.journal.rating_checkpoints import RatingCheckpoints, ratings_path
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.rating.session_state import models_state, sessions_state
from table_runtime.runtime.checkpointing import JournalRows, rebuild
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.process_pipe import received, start_off_the_loop
from table_runtime.runtime.rating_worker import TABLE_ADVICE, fold_terms
from table_runtime.runtime.terms import journal_terms

log = logging.getLogger(__name__)
NICE = 19  # the audit's niceness: it takes the CPU the table leaves
PAUSE_S = 0.0  # between two chunks, in the audit's process (its own interpreter: nothing to give back)
Report = tuple[str, int] | AuditBreak  # a stage done (its name and how many rows or checkpoints), or a break


async def audit_journal(controller: TableController, *, chunk_rows: int = CHUNK_ROWS, pause_s: float = PAUSE_S,
                        on_broken: Callable[[AuditBreak], None] | None = None, nice: int = NICE,
                        advice: AdviceSettings | None = TABLE_ADVICE) -> None:
    """Check the rows before the start's checkpoint, then the checkpoints' states, then the rated sessions'
    checkpoints (folded under `advice`, the rating watch's settings), in the audit's process; a break stops play (or
    is passed to `on_broken`, for a caller that refuses the journal instead)."""
    journal = controller.journal
    start = journal.start_checkpoint
    if start is None:
        return  # the start verified every row (and no checkpoint of the rated sessions can be used without one)
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=False)
    process = context.Process(target=_serve, name=f"audit-{controller.table_id}", daemon=True, args=(
        theirs, journal.path, start.seq, start.chain_hash, advice, chunk_rows, pause_s, nice))
    try:
        await start_off_the_loop(process.start)  # fork, exec and its arguments: not the loop's to wait for
        theirs.close()
        while True:
            report = await _receive(ours)
            if report is None:
                log.error("journal audit: %s: the audit's process ended before it was done", journal.path)
                return
            if isinstance(report, AuditBreak):
                if on_broken is not None:
                    on_broken(report)
                else:
                    log.error("journal audit: %s: %s", journal.path, report.reason)
                    await controller.step(controller.journal_broken, report.seq, report.reason)
                return
            stage, count = report
            if stage == "done":
                return
            log.info("journal audit: %s: %d verified", stage, count)
    finally:
        ours.close()
        theirs.close()
        if process.pid is not None:  # started (a cancellation may come before)
            process.kill()
            await asyncio.to_thread(process.join)


async def _receive(connection: Connection) -> Report | None:
    """The next report of the audit's process (None once it ended)."""
    found: Report | None = await received(connection)
    return found


def _serve(connection: Connection, path: Path, until_seq: int, until_hash: str, advice: AdviceSettings | None,
           chunk_rows: int, pause_s: float, nice: int) -> None:
    """The audit's process: each stage's report, or the break it found."""
    os.nice(nice)
    try:
        finding = _audit(connection, path, until_seq, until_hash, advice, chunk_rows, pause_s)
    except (TableError, sqlite3.Error) as error:
        finding = AuditBreak(None, f"the journal cannot be audited: {error}")
    connection.send(finding if finding is not None else ("done", 0))
    connection.close()


def _audit(connection: Connection, path: Path, until_seq: int, until_hash: str, advice: AdviceSettings | None,
           chunk_rows: int, pause_s: float) -> AuditBreak | None:
    audit = ChainAudit(path, until_seq, until_hash, chunk_rows=chunk_rows)
    while not audit.done:
        finding = audit.step()
        if finding is not None:
            return finding
        if pause_s:
            time.sleep(pause_s)
    connection.send((f"rows 1..{until_seq} (chain)", until_seq))
    rows = ReadOnlyRows(path)
    try:
        sealed = rows.checkpoints_until(until_seq)
        previous: Checkpoint | None = None
        for checkpoint in sealed:
            finding = replay_check(rows, previous, checkpoint)
            if finding is not None:
                return finding
            previous = checkpoint
        connection.send(("checkpoints replayed and equal", len(sealed)))
        terms = journal_terms(rows)
        if terms is None:
            return AuditBreak(None, "the journal does not say which terms it was played under")
        finding, count = ratings_check(rows, path, terms, advice)
        if finding is None:
            connection.send(("rated sessions' checkpoints folded and equal", count))
        return finding
    finally:
        rows.close()


def replay_check(journal: JournalRows | TableController, previous: Checkpoint | None, checkpoint: Checkpoint
                 ) -> AuditBreak | None:
    """Whether the rows between two checkpoints (from the first row when `previous` is None) fold to the second's
    state (the one fold of the journal, core/record.py, under the journal's own terms); the break when they do not.
    Given a controller, its journal."""
    if isinstance(journal, TableController):
        journal = journal.journal
    try:
        core = rebuild(journal, previous, until=checkpoint.seq)
        state = checkpoint_state(core)
        if "meters" not in checkpoint.state.get("core", {}):  # sealed before the meters: compared without them
            state["core"].pop("meters", None)
        replayed = encode_state(state)
    except (JournalError, KeyError, TypeError, ValueError) as error:
        return AuditBreak(checkpoint.seq, f"checkpoint at row {checkpoint.seq}: the rows before it do not replay: "
                                          f"{error}")
    if replayed != checkpoint.state_text:
        return AuditBreak(checkpoint.seq, f"checkpoint at row {checkpoint.seq}: its state is not what the rows "
                                          "before it replay to (checkpoint forged)")
    return None


def ratings_check(rows: ReadOnlyRows, path: Path, table: TableTerms, advice: AdviceSettings | None
                  ) -> tuple[AuditBreak | None, int]:
    """The rated sessions' checkpoints the worker would use (sealed, of this journal and these terms, on their row)
    against the one rating fold from the first row, and the models kept against the models computed; the break, and
    how many checkpoints were compared."""
    store = RatingCheckpoints.read_only(ratings_path(path))
    if store is None:
        return None, 0
    try:
        journal_id = str(rows.db.execute("SELECT value FROM meta WHERE key = 'journal.id'").fetchone()[0])
        terms = fold_terms(table.table_id, table.rules, advice)
        fold = SessionFold(table.table_id, table.rules, table.limits, zones=table.zones, advice=advice)
        kept = store.models(terms)
        if kept is not None and kept != encode_state(models_state(fold.sessions)):
            return AuditBreak(None, f"{store.path}: the rated sessions' models kept are not those of the table's "
                                    "terms (models forged)"), 0
        usable = []
        for checkpoint in sorted(store.newest(), key=lambda checkpoint: checkpoint.seq):
            row = rows.db.execute("SELECT hash FROM entries WHERE seq = ?", (checkpoint.seq,)).fetchone()
            if (checkpoint.sealed and checkpoint.journal == journal_id and checkpoint.terms == terms
                    and row is not None and str(row[0]) == checkpoint.chain_hash):
                usable.append(checkpoint)
    finally:
        store.close()
    if not usable:
        return None, 0
    waiting = list(usable)

    def compare(before_seq: int) -> AuditBreak | None:
        while waiting and waiting[0].seq < before_seq:
            checkpoint = waiting.pop(0)
            if encode_state(sessions_state(fold.sessions)) != checkpoint.state_text:
                return AuditBreak(checkpoint.seq, f"rated sessions' checkpoint at row {checkpoint.seq}: its state is "
                                                  "not what the rows before it fold to (checkpoint forged)")
        return None

    try:
        for entry in rows.entries(0, exclude=DERIVED_KINDS):
            if entry.seq > usable[-1].seq:
                break
            finding = compare(entry.seq)
            if finding is not None:
                return finding, 0
            fold.take(entry.seq, entry.ts, entry.kind, entry.body)
            if fold.sessions.advice is not None:
                fold.sessions.advice.raised = []  # the worker hands them over after each row
        finding = compare(usable[-1].seq + 1)
    except (TableError, KeyError, TypeError, ValueError) as error:
        return AuditBreak(fold.last_seq + 1, f"row {fold.last_seq + 1}: the rated sessions do not fold: {error}"), 0
    return finding, len(usable)
