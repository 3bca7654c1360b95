"""The one rating fold (runtime/rating_worker.py): in a process of its own it reads the journal itself, read-only,
says which row it refused and is gone once closed; it starts from its newest checkpoint, sealed beside the journal
(journal/rating_checkpoints.py), and from there makes the same messages, advice and sessions as a fold from the
first row; a checkpoint that was altered, or of rows whose messages the journal does not hold yet, is not used, and
one forged with its seal is found by the journal's audit, which stops play."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_runtime.core.row_kinds import RowKind
from table_runtime.game.rules import TableLimits
from table_runtime.journal import Journal
from table_runtime.journal.checkpoints import encode_state
from table_runtime.journal.rating_checkpoints import RatingCheckpoints, ratings_path, seal_of
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.rating.session_state import sessions_state
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.journal_audit import audit_journal
from table_runtime.runtime.rating_worker import RatingFold, RatingWorker, RatingWorkerError

from .rated_table import LOWERED, RAMP, ROUNDS, T0, RatedTable, play_ramp, play_round


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RatedTable]:
    rated = RatedTable(tmp_path, checkpoint_rows=20)  # a checkpoint of the table every round or two
    yield rated
    rated.close()


def _fold(table: RatedTable, settings: AdviceSettings | None = LOWERED) -> RatingFold:
    return RatingFold(table.journal.path, settings=settings, checkpoint_rows=20)


def _full(table: RatedTable, settings: AdviceSettings | None = LOWERED) -> SessionFold:
    """The rated sessions by a fold of every row from the first, in this process."""
    fold = SessionFold("T01", table.rules, TableLimits(), advice=settings)
    fold.take_all(table.journal.entries())
    if fold.sessions.advice is not None:
        fold.sessions.advice.raised = []  # handed over, as each step of the worker does
    return fold


def _journal_messages(table: RatedTable, messages: list[dict[str, object]]) -> None:
    """What the runtime does with a step's messages: `rating` rows."""
    table.journal.append_many([(RowKind.RATING, message) for message in messages], ts=T0 + table.at)


def test_the_worker_reads_the_journal_read_only_names_a_refused_row_and_ends_when_closed(table: RatedTable) -> None:
    table.press("SEAT", box=3, player="A")
    worker = RatingWorker(table.journal.path, AdviceSettings(), nice=0)
    try:
        last, view, advice, messages, caught_up = worker.step(T0 + 10)
        # A journal with no `rating` row yet: the rows before its head are folded, their messages not made again.
        assert (last, advice, messages, caught_up) == (table.journal.last_seq, [], [], True)
        assert [(seated["player"], seated["box"]) for seated in view] == [("A", 3)]
        play_round(table, 1000, "TH 6S 9D", "TC 8C")  # no stake on box 3: A watched
        table.lock({3: 2000})
        _, view, _, messages, _ = worker.step(T0 + 20)
        expected = [m for m in table.messages() if m["seq"] > last]
        assert messages == expected and [m["type"] for m in messages] == ["session_started", "session_updated",
                                                                          "session_closed"]
        pid = worker._process.pid
        assert pid is not None
        opened = {os.readlink(f"/proc/{pid}/fd/{name}"): name for name in os.listdir(f"/proc/{pid}/fd")}
        fd = opened[str(table.journal.path.resolve())]
        with open(f"/proc/{pid}/fdinfo/{fd}", encoding="ascii") as info:
            flags = int(next(line for line in info if line.startswith("flags:")).split()[1], 8)
        assert flags & os.O_ACCMODE == os.O_RDONLY  # it never writes the journal
        table.journal.append("no-such-kind", {}, ts=T0 + 30)
        with pytest.raises(RatingWorkerError, match=rf"row {table.journal.last_seq} does not fold: .*no-such-kind"):
            worker.step(T0 + 30)
    finally:
        worker.close()
    assert not worker._process.is_alive()
    with pytest.raises(RatingWorkerError, match="the rating worker ended"):
        worker.step(T0 + 40)


def test_a_fold_from_its_checkpoint_makes_what_a_fold_from_the_first_row_makes(table: RatedTable) -> None:
    table.press("SEAT", box=1, player="A")
    table.press("SEAT", box=2, player="B")
    for stake, (cards, bank) in zip(RAMP[:4], ROUNDS[:4], strict=True):
        play_round(table, stake, cards, bank)
    first = _fold(table)
    assert first.rated_through == table.journal.last_seq  # no `rating` row yet: the head at this start
    _, _, _, messages, caught_up = first.step(T0)
    assert messages == [] and caught_up
    for stake, (cards, bank) in zip(RAMP[4:], ROUNDS[4:], strict=True):
        play_round(table, stake, cards, bank)
    _, _, advice, messages, _ = first.step(T0)
    assert messages and advice  # the ramp's last rounds: advised (thresholds lowered to six rounds)
    _journal_messages(table, messages)
    first.close()
    with RatingCheckpoints(ratings_path(table.journal.path)) as store_check:
        kept = store_check.newest()
    assert len(kept) == 3 and all(checkpoint.sealed for checkpoint in kept)  # the newest three, each sealed
    table.at = 300
    table.press("SEAT_CLEAR", box=2)
    play_round(table, 5000, "2H 3H 4H", "5S 6D 2C 3C")

    again = _fold(table)
    assert 0 < again.started_from <= again.rated_through  # from a checkpoint, never row 1
    last, view, advice_again, made, _ = again.step(T0 + 400)
    full = _full(table)
    assert made == [m for m in table.messages() if m["seq"] > again.rated_through]
    assert made and advice_again == []  # the ramp was advised once, before: not again
    assert encode_state(sessions_state(again.fold.sessions)) == encode_state(sessions_state(full.sessions))
    assert last == list(table.journal.entries(kinds=("input",)))[-1].seq and view[0]["rounds"] == 7
    again.close()


def test_an_altered_checkpoint_or_one_past_the_journaled_messages_is_not_used(table: RatedTable) -> None:
    table.press("SEAT", box=1, player="A")
    play_ramp(table, RAMP)
    fold = _fold(table, settings=None)
    fold.rated_through = 0  # as for a journal whose messages are all to make
    _, _, _, messages, _ = fold.step(T0)
    fold.close()
    path = ratings_path(table.journal.path)
    with RatingCheckpoints(path) as store:
        newest, older, oldest = store.newest()
    # The messages journaled only up to the row of the checkpoint before the newest: the newest is not used (the
    # messages of the rows before it would never be journaled), the newest at or before the last `rating` row is.
    _journal_messages(table, [m for m in messages if int(str(m["seq"])) <= older.seq])
    rated = _fold(table, settings=None)
    assert rated.rated_through <= older.seq
    assert rated.started_from == max((c.seq for c in (older, oldest) if c.seq <= rated.rated_through), default=0)
    _journal_messages(table, [m for m in messages if int(str(m["seq"])) > older.seq])
    assert _fold(table, settings=None).started_from == newest.seq
    db = sqlite3.connect(path)
    state = json.loads(newest.state_text)
    state["open"][0]["handle"] += 100  # a richer player, the seal not recomputed
    db.execute("UPDATE rating_checkpoints SET state = ? WHERE seq = ?", (encode_state(state), newest.seq))
    db.commit()
    db.close()
    restarted = _fold(table, settings=None)
    assert restarted.started_from == older.seq  # the altered one is passed over
    _, view, _, _, _ = restarted.step(T0)
    assert view[0]["handle_cents"] == sum(RAMP)
    restarted.close()


def test_a_rated_sessions_checkpoint_forged_with_its_seal_is_found_by_the_audit(table: RatedTable) -> None:
    table.press("SEAT", box=1, player="A")
    play_ramp(table, RAMP)
    table.journal_ratings(checkpoint_rows=20)
    table.close()
    path = ratings_path(table.journal.path)
    with Journal.open(table.journal.path) as journal:  # intact: the audit folds them again and finds them equal
        controller = TableController(table_id="T01", rules=table.rules, limits=TableLimits(), journal=journal,
                                     clock=lambda: T0)
        asyncio.run(audit_journal(controller, chunk_rows=50, advice=AdviceSettings(), nice=0))
        assert not controller.halted
    with RatingCheckpoints(path) as store:
        newest = store.newest()[0]
    state = json.loads(newest.state_text)
    state["open"][0]["handle"] += 100  # a richer player, sealed again (sha256 has no secret)
    forged = encode_state(state)
    db = sqlite3.connect(path)
    db.execute("UPDATE rating_checkpoints SET state = ?, seal = ? WHERE seq = ?",
               (forged, seal_of(newest.journal, newest.seq, newest.chain_hash, newest.terms, forged), newest.seq))
    db.commit()
    db.close()
    with Journal.open(table.journal.path) as journal:
        controller = TableController(table_id="T01", rules=table.rules, limits=TableLimits(), journal=journal,
                                     clock=lambda: T0)
        asyncio.run(audit_journal(controller, chunk_rows=50, advice=AdviceSettings(), nice=0))
        assert controller.halted and "rated sessions' checkpoint" in controller.halted
        assert "checkpoint forged" in controller.halted
        assert controller.alarms.active[-1]["amounts"] == {"row": newest.seq}
