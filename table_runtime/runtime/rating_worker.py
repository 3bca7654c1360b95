"""The one fold of the rated sessions, in a process of its own, so that its CPU never holds the runtime's interpreter.

The rated sessions fold the journal (the table's one fold, then the sessions, the detection's scores and each
decision's cost: about 1.4 ms of CPU a round). In a thread of the runtime that work holds the GIL for up to the
interpreter's switch interval at a time while a card waits for the loop: measured, it moved card -> screen p99 from
about 9 ms to 25 ms on the Pi's proxy (bench/README.md). In a process of its own the operating system schedules it
apart; once it has caught up with the journal it drops to the lowest CPU priority (nice 19) and takes only what the
table's process leaves (at once when it starts far behind: an older journal's first fold).

`RatingFold` is that fold over a journal file: it reads the rows itself (a read-only connection: it never writes
the journal), starts from its newest checkpoint (journal/rating_checkpoints.py: the journal's checkpoint of the
table at a row and the rated sessions' state sealed beside it, in a file of its own), folds the rows since, and
keeps a checkpoint of the sessions at the journal's checkpoints. It hands back what the journal does not hold
yet: the `ratings` messages and the advice of the rows after the last `rating` row (the runtime journals them:
runtime/rating_watch.py), so a restart neither loses nor repeats them. A journal with no `rating` row (written
before them) gets messages for the rows after its head at that start: the version that wrote it published the
ones before from its own fold.

`RatingWorker` (the runtime's side) starts the process (`spawn`: nothing of the runtime's threads or open files is
copied) and asks it for a step at a time; it is killed with the watch (a daemon: with the runtime too).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import sqlite3
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from table_runtime.core.record import starting_core
from table_runtime.core.row_kinds import DERIVED_KINDS, RowKind
from table_runtime.core.terms import TableTerms
from table_runtime.errors import JournalError, TableError
from table_runtime.game.events import Alarm
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.journal import checkpoints
from table_runtime.journal.checkpoints import encode_state
from table_runtime.journal.rating_checkpoints import RatingCheckpoint, RatingCheckpoints, ratings_path, terms_digest
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.rating.session_state import models_state, restore_models, restore_sessions, sessions_state
from table_runtime.rating.sessions import RatingModels, theo_cents
from table_runtime.runtime.terms import file_terms
from table_runtime.strategy.terms import PlayTerms

log = logging.getLogger(__name__)
NICE = 19  # the worker's niceness once caught up: it takes the CPU the table leaves
SHORT_START_ROWS = 20_000  # more rows than this to fold at the start (no usable checkpoint): at NICE from the start
CHUNK_ROWS = 2000  # rows folded per step
CHECKPOINT_ROWS = 2000  # rows at least between two checkpoints of the rated sessions
Step = tuple[int, list[dict[str, Any]], list[Alarm], list[dict[str, Any]], bool]
"""The last row folded, the open sessions, the advice and the `ratings` messages to journal, caught up."""
TABLE_ADVICE = AdviceSettings()  # the settings of a table's rating watch: the terms of the checkpoints it keeps
_STATE_KIND_LIST = sorted(DERIVED_KINDS)


class RatingWorkerError(TableError):
    """The worker refused a row (the message names it) or ended."""


def session_view(fold: SessionFold, now: float) -> list[dict[str, Any]]:
    """The open sessions by box, seated first: player, time played, rounds, handle, win, theo and skill theo."""
    sessions = fold.sessions
    view = []
    for _, session in sorted(sessions.open.items()):
        theo, theo_skill = theo_cents(session.handle, sessions.edge, session.cost)
        view.append({"session": session.session, "box": session.box, "behind": session.behind,
                     "player": session.player, "seconds_played": session.seconds(now), "rounds": session.rounds,
                     "hands": session.hands, "handle_cents": session.handle, "win_cents": session.win,
                     "theo_cents": theo, "theo_skill_cents": theo_skill})
    return view


def fold_terms(table_id: str, rules: RuleOptions, settings: AdviceSettings | None) -> str:
    """The digest of the terms a rated sessions' state is folded under (journal/rating_checkpoints.py): the table
    (its sessions' ids), the rules (the house edge, the decisions' costs) and the advice's settings. The limits and
    the zones are the table's core's, which comes from the journal's own checkpoint."""
    return terms_digest(repr((table_id, rules, settings)))


def read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to the journal at `path` (the writer goes on appending)."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, timeout=10.0)


def last_rated(db: sqlite3.Connection) -> int | None:
    """The row the last `rating` row's message was made of (None: the journal has no `rating` row)."""
    row = db.execute("SELECT body FROM entries WHERE kind = ? ORDER BY seq DESC LIMIT 1", (RowKind.RATING,)).fetchone()
    if row is None:
        return None
    return int(json.loads(row[0])["seq"])


def restored_fold(db: sqlite3.Connection, checkpoint: RatingCheckpoint, journal_id: str, terms: str,
                  table_id: str, rules: RuleOptions, limits: TableLimits, zones: tuple[str, ...],
                  settings: AdviceSettings | None, models: RatingModels | None) -> SessionFold | str:
    """The fold at `checkpoint`: the journal's checkpoint of the table at its row, the sessions' state beside it; or
    why it cannot be used."""
    if not checkpoint.sealed:
        return f"rated sessions' checkpoint at row {checkpoint.seq}: its seal does not match its contents"
    if checkpoint.journal != journal_id or checkpoint.terms != terms:
        return f"rated sessions' checkpoint at row {checkpoint.seq}: of another journal or other terms"
    row = db.execute("SELECT hash FROM entries WHERE seq = ?", (checkpoint.seq,)).fetchone()
    if row is None or str(row[0]) != checkpoint.chain_hash:
        return f"rated sessions' checkpoint at row {checkpoint.seq}: the row's hash is not the one it sealed"
    table = checkpoints.between(db, checkpoint.seq, checkpoint.seq)
    if not table:
        return f"rated sessions' checkpoint at row {checkpoint.seq}: the journal has no checkpoint of the table there"
    reason = checkpoints.problem(table[0], str(row[0]))
    if reason is not None:
        return reason
    try:
        core = starting_core(TableTerms.of(table_id, rules, limits, tuple(zones)), table[0].state)
        fold = SessionFold(table_id, rules, limits, zones=zones, advice=settings, models=models, core=core,
                           last_seq=checkpoint.seq)
        value = json.loads(checkpoint.state_text)
        if not isinstance(value, dict):
            raise ValueError("a rated sessions' state is a JSON object")
        restore_sessions(fold.sessions, value)
    except (JournalError, KeyError, TypeError, ValueError) as error:
        return f"rated sessions' checkpoint at row {checkpoint.seq}: unreadable: {error!r}"
    return fold


class RatingFold:
    """The rated sessions of the journal at `journal_path`, from their newest checkpoint (see the module)."""

    def __init__(self, journal_path: Path, *, settings: AdviceSettings | None = None,
                 checkpoint_rows: int = CHECKPOINT_ROWS, rate_history: bool = False) -> None:
        """Under the journal's own terms (its last `terms` row: the table, the rules, the limits, the zones).
        `rate_history`: a journal with no `rating` row gets the messages of every row (a table's life journaled
        again offline: the tests, the benches), not only of those after its head."""
        self.checkpoint_rows = checkpoint_rows
        table = file_terms(journal_path)
        table_id, rules, limits = table.table_id, table.rules, table.limits
        self._db = read_only(journal_path)
        self._store = RatingCheckpoints(ratings_path(journal_path))
        self._journal_id = str(self._db.execute("SELECT value FROM meta WHERE key = 'journal.id'").fetchone()[0])
        zones = table.zones
        self._terms = fold_terms(table_id, rules, settings)
        models = self._models(table_id, rules, settings)
        rated = last_rated(self._db)
        if rated is None and rate_history:
            rated = 0
        elif rated is None:  # a journal before `rating` rows: its older messages were the feed's own
            rated = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM entries").fetchone()[0])
        self.rated_through = rated
        self.fold = SessionFold(table_id, rules, limits, zones=zones, advice=settings, models=models)
        for checkpoint in self._store.newest(at_most=rated):
            found = restored_fold(self._db, checkpoint, self._journal_id, self._terms, table_id, rules, limits,
                                  zones, settings, models)
            if isinstance(found, SessionFold):
                self.fold = found
                break
            log.warning("rating fold: %s: %s", self._store.path, found)
        self.started_from = self.fold.last_seq
        self._last_checkpoint = self.fold.last_seq
        head = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM entries").fetchone()[0])
        self.behind = head - self.started_from  # rows to fold to reach the head as it was at the start

    def _models(self, table_id: str, rules: RuleOptions, settings: AdviceSettings | None) -> RatingModels | None:
        """The models of the play terms, as kept (computed, and kept, the first time)."""
        kept = self._store.models(self._terms)
        terms = PlayTerms.from_options(rules)
        if kept is not None:
            try:
                return restore_models(json.loads(kept), terms)
            except (KeyError, TypeError, ValueError) as error:
                log.warning("rating fold: %s: models unreadable (%r): computed again", self._store.path, error)
        fresh = SessionFold(table_id, rules, advice=settings or AdviceSettings())
        self._store.keep_models(self._terms, encode_state(models_state(fresh.sessions)))
        return restore_models(models_state(fresh.sessions), terms)

    def step(self, now: float, limit: int = CHUNK_ROWS) -> Step:
        """Fold up to `limit` rows after the last one folded: the last row folded, the open sessions as the
        supervisor's view shows them at `now`, the advice and the messages of rows the journal has none for yet,
        and whether the fold reached the head."""
        fold = self.fold
        self._db.execute("BEGIN")
        try:
            rows = self._db.execute(
                f"SELECT seq, ts, kind, body FROM entries WHERE seq > ? AND kind NOT IN "
                f"({', '.join('?' * len(_STATE_KIND_LIST))}) ORDER BY seq LIMIT ?",
                (fold.last_seq, *_STATE_KIND_LIST, limit)).fetchall()
            sealed = self._db.execute("SELECT seq, chain_hash FROM checkpoints WHERE seq >= ? AND seq < ? ORDER BY seq",
                                      (fold.last_seq, rows[-1][0] if rows else fold.last_seq)).fetchall()
        finally:
            self._db.execute("COMMIT")
        advice = fold.sessions.advice
        messages: list[dict[str, Any]] = []
        alarms: list[Alarm] = []
        at = 0
        for seq, ts, kind, body in rows:
            while at < len(sealed) and sealed[at][0] < seq:  # the table's checkpoint is after the rows before this
                self._checkpoint(int(sealed[at][0]), str(sealed[at][1]))
                at += 1
            try:
                made = fold.take(int(seq), float(ts), str(kind), json.loads(body))
            except (TableError, KeyError, TypeError, ValueError) as error:
                raise RatingWorkerError(f"row {seq} does not fold: {error}") from error
            if seq > self.rated_through:
                messages += made
                if advice is not None:
                    alarms += advice.raised
            if advice is not None:
                advice.raised = []
        if rows:
            fold.last_seq = int(rows[-1][0])
        return fold.last_seq, session_view(fold, now), alarms, messages, len(rows) < limit

    def _checkpoint(self, seq: int, chain_hash: str) -> None:
        if seq <= self._last_checkpoint or seq - self._last_checkpoint < self.checkpoint_rows:
            return
        state = encode_state(sessions_state(self.fold.sessions))
        self._store.write(self._journal_id, seq, chain_hash, self._terms, state)
        self._last_checkpoint = seq

    def close(self) -> None:
        self._db.close()
        self._store.close()


def _serve(connection: Connection, journal_path: Path, settings: AdviceSettings, nice: int,
           checkpoint_rows: int) -> None:
    """The worker process: its fold from the newest checkpoint, then one answer per request until the runtime closes
    the pipe; the lowest priority once a step reached the head. A runtime gone without closing it (kill -9) ends the
    worker the same way, quietly: the pipe broken is its end, not an error to print."""
    try:
        fold: RatingFold | None = RatingFold(journal_path, settings=settings, checkpoint_rows=checkpoint_rows)
        failure = ""
    except (TableError, sqlite3.Error, KeyError, TypeError, ValueError) as error:
        fold, failure = None, f"the rating fold cannot start on {journal_path}: {error}"
    niced = False
    if fold is not None and fold.behind > SHORT_START_ROWS:  # a fold from far back (an older journal's first start)
        os.nice(nice)
        niced = True
    while True:
        try:
            now, limit = connection.recv()
        except (EOFError, ConnectionResetError):
            return
        answer: Step | str = failure
        if fold is not None:
            try:
                answer = fold.step(now, limit)
            except RatingWorkerError as error:
                answer = str(error)
            except (TableError, sqlite3.Error) as error:
                answer = f"the rating fold cannot read {journal_path}: {error}"
        if not niced and not isinstance(answer, str) and answer[4]:
            os.nice(nice)  # caught up: from now on only what the table leaves
            niced = True
        try:
            connection.send(answer)
        except (BrokenPipeError, ConnectionResetError):  # nobody to answer: the runtime was killed
            return


class RatingWorker:
    """The runtime's side of the worker process: `step(now)` blocks (call it off the loop); `close()`."""

    def __init__(self, journal_path: Path, settings: AdviceSettings, *, nice: int = NICE,
                 checkpoint_rows: int = CHECKPOINT_ROWS) -> None:
        """The worker folds `journal_path` under the journal's own terms (`RatingFold`)."""
        context = multiprocessing.get_context("spawn")
        self._connection, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(theirs, journal_path, settings, nice, checkpoint_rows),
                                        name="rating-worker", daemon=True)
        self._process.start()
        theirs.close()

    def step(self, now: float, limit: int = CHUNK_ROWS) -> Step:
        """Fold up to `limit` more rows in the worker; what it gives back (RatingWorkerError if it refused a row or
        ended)."""
        try:
            self._connection.send((now, limit))
            answer: Step | str = self._connection.recv()
        except (EOFError, OSError) as error:
            raise RatingWorkerError(f"the rating worker ended: {error or type(error).__name__}") from error
        if isinstance(answer, str):
            raise RatingWorkerError(answer)
        return answer

    def close(self) -> None:
        """Kill the worker (whatever it was folding: the journal has it all) and wait for it."""
        self._connection.close()
        self._process.kill()
        self._process.join()
