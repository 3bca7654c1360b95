"""The journal: hash chain, tamper detection, meta cursors, readers beside a writer, the CLI."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_runtime.cli import main
from table_runtime.errors import JournalError
from table_runtime.journal import (
    GENESIS_HASH,
    Journal,
    JournalBodyError,
    JournalBrokenError,
    JournalClosedError,
    JournalEntry,
    entry_hash,
    journal_path,
    verify_file,
)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return journal_path(tmp_path)


@pytest.fixture
def filled(path: Path) -> Iterator[Path]:
    """A journal of ten rows, closed again."""
    with Journal.open(path) as journal:
        for i in range(1, 11):
            journal.append("card", {"i": i, "card": "AS"}, ts=1000.0 + i)
    yield path


def tamper(path: Path, sql: str, *params: Any) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute(sql, params)
    db.close()


def test_rows_chain_from_genesis_and_read_back_in_order(path: Path) -> None:
    with Journal.open(path) as journal:
        assert journal.last_seq == 0
        first = journal.append("bets_locked", {"box": 3, "cents": 2500, "zones": {"box3": 2500}}, ts=10.5)
        batch = journal.append_many([("card_dealt", {"card": "KH"}), ("turn", {"box": None})], ts=11.0)
        assert journal.last_seq == 3
        read = list(journal.entries())
    assert first == JournalEntry(1, 10.5, "bets_locked", {"box": 3, "cents": 2500, "zones": {"box3": 2500}},
                                 GENESIS_HASH, first.hash)
    assert first.hash == entry_hash(GENESIS_HASH, 1, 10.5, "bets_locked",
                                    '{"box":3,"cents":2500,"zones":{"box3":2500}}')
    assert [e.seq for e in batch] == [2, 3]
    assert batch[0].prev_hash == first.hash and batch[1].prev_hash == batch[0].hash
    assert read == [first, *batch]


def test_entries_after_and_limit_page_through_many_rows(path: Path) -> None:
    with Journal.open(path) as journal:
        journal.append_many([("n", {"i": i}) for i in range(1, 1201)], ts=1.0)
        assert [e.seq for e in journal.entries(after_seq=1195)] == [1196, 1197, 1198, 1199, 1200]
        assert [e.body["i"] for e in journal.entries(after_seq=499, limit=3)] == [500, 501, 502]
        assert len(list(journal.entries(limit=1001))) == 1001
        assert sum(1 for _ in journal.entries()) == 1200
        assert list(journal.entries(limit=0)) == []


def test_entries_of_some_kinds_and_the_round_starts_skip_the_other_rows(path: Path) -> None:
    with Journal.open(path) as journal:
        rows = [("input", {"type": "BetsLocked", "i": 0})]
        for i in range(1, 1201):  # more than a page of the kinds asked for, among others
            rows += [("input", {"i": i}), ("event", {"type": "CardAssigned", "i": i}), ("alarm", {"i": i})]
        named: tuple[str, dict[str, object]] = ("event", {"type": "Alarm", "message": "RoundStarted"})
        rows += [("event", {"type": "RoundStarted", "round": n}) for n in (1, 2)]
        rows.insert(-1, named)
        journal.append_many(rows, ts=1.0)
        inputs = list(journal.entries(kinds=("input",)))
        assert [e.body.get("i") for e in inputs] == list(range(1201)) and {e.kind for e in inputs} == {"input"}
        both = list(journal.entries(after_seq=3000, kinds=("input", "alarm")))
        assert [e.seq for e in both] == [seq for seq in range(3001, 3602) if seq % 3 != 0]  # events: seq % 3 == 0
        assert list(journal.entries(kinds=())) == []
        assert journal.round_starts() == [(3602, 1), (3604, 2)]  # a message that names it is no round start
        assert journal.last_round_starts(1) == [(3604, 2)]  # read from the end: the message is skipped
        assert journal.last_round_starts(5) == [(3602, 1), (3604, 2)] and journal.last_round_starts(0) == []


def test_reopened_journal_continues_the_chain(filled: Path) -> None:
    with Journal.open(filled) as journal:
        assert journal.last_seq == 10
        entry = journal.append("round_started", {"round": 2}, ts=2000.0)
        assert entry.seq == 11
        assert entry.prev_hash == next(journal.entries(after_seq=9, limit=1)).hash
        assert journal.verify().ok


def test_verify_summary_counts_rows(filled: Path) -> None:
    result = verify_file(filled)
    assert (result.ok, result.rows, result.first_bad_seq) == (True, 10, None)
    assert "10 rows" in result.reason


def test_changed_body_is_named(filled: Path) -> None:
    tamper(filled, "UPDATE entries SET body = ? WHERE seq = 4", '{"card":"KS","i":4}')
    with pytest.raises(JournalBrokenError) as refused:  # no checkpoint yet: the open checks every row
        Journal.open(filled)
    assert refused.value.seq == 4 and "row 4" in str(refused.value)
    result = verify_file(filled)
    assert (result.ok, result.first_bad_seq, result.rows) == (False, 4, 3)
    assert "row 4" in result.reason and "altered" in result.reason


def test_changed_timestamp_is_named(filled: Path) -> None:
    tamper(filled, "UPDATE entries SET ts = ts + 1 WHERE seq = 2")
    assert verify_file(filled).first_bad_seq == 2


def test_deleted_row_is_named(filled: Path) -> None:
    tamper(filled, "DELETE FROM entries WHERE seq = 6")
    result = verify_file(filled)
    assert (result.ok, result.first_bad_seq) == (False, 6)
    assert "row 6 missing" in result.reason


def test_deleted_row_renumbered_is_named(filled: Path) -> None:
    # Closing the gap by renumbering does not help: row 6 now links to the wrong row.
    tamper(filled, "DELETE FROM entries WHERE seq = 6")
    for seq in range(7, 11):
        tamper(filled, "UPDATE entries SET seq = seq - 1 WHERE seq = ?", seq)
    result = verify_file(filled)
    assert (result.ok, result.first_bad_seq) == (False, 6)
    assert "prev_hash" in result.reason


def test_reordered_rows_are_named(filled: Path) -> None:
    tamper(filled, "UPDATE entries SET seq = -1 WHERE seq = 3")
    tamper(filled, "UPDATE entries SET seq = 3 WHERE seq = 4")
    tamper(filled, "UPDATE entries SET seq = 4 WHERE seq = -1")
    result = verify_file(filled)
    assert (result.ok, result.first_bad_seq) == (False, 3)


def test_swapped_bodies_are_named(filled: Path) -> None:
    tamper(filled, "UPDATE entries SET body = (SELECT body FROM entries WHERE seq = 8) WHERE seq = 7")
    assert verify_file(filled).first_bad_seq == 7


def test_rows_cut_from_the_end_are_caught_at_open(filled: Path) -> None:
    tamper(filled, "DELETE FROM entries WHERE seq >= 9")
    with pytest.raises(JournalBrokenError) as caught:
        Journal.open(filled)
    assert caught.value.seq == 9
    assert "rows 9..10 missing" in str(caught.value)
    result = verify_file(filled)
    assert (result.ok, result.rows, result.first_bad_seq) == (False, 8, 9)


def test_altered_last_row_is_caught_at_open(filled: Path) -> None:
    tamper(filled, "UPDATE entries SET kind = 'void' WHERE seq = 10")
    with pytest.raises(JournalBrokenError) as caught:
        Journal.open(filled)
    assert caught.value.seq == 10 and "altered" in caught.value.reason


def test_every_row_deleted_is_caught_at_open(filled: Path) -> None:
    tamper(filled, "DELETE FROM entries")
    with pytest.raises(JournalBrokenError) as caught:
        Journal.open(filled)
    assert caught.value.seq == 1


def test_a_file_that_is_not_a_journal_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "journal.db"
    bogus.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(JournalError):
        Journal.open(bogus)
    with pytest.raises(JournalError, match="no journal"):
        verify_file(tmp_path / "missing.db")


@pytest.mark.parametrize(
    ("kind", "body"),
    [("", {}), ("two\nlines", {}), ("x", {"nan": float("nan")}), ("x", {"obj": object()}), ("x", [1, 2]),
     ("x", {"reason": "misdeal \ud800"}), ("kind \udcff", {})],  # a lone surrogate (JSON from a page may carry one)
)
def test_unjournalable_input_is_refused_and_writes_nothing(path: Path, kind: str, body: Any) -> None:
    with Journal.open(path) as journal:
        journal.append("ok", {}, ts=1.0)
        with pytest.raises(JournalBodyError):
            journal.append_many([("fine", {"a": 1}), (kind, body)], ts=2.0)
        assert journal.last_seq == 1
        with pytest.raises(JournalBodyError):
            journal.append("x", {}, ts=float("inf"))
        assert journal.verify().ok


def test_meta_cursor_survives_reopen(path: Path) -> None:
    with Journal.open(path) as journal:
        assert journal.get_meta("feed.last_seq") is None
        journal.set_meta("feed.last_seq", "41")
        journal.set_meta("feed.last_seq", "42")
    with Journal.open(path) as journal:
        assert journal.get_meta("feed.last_seq") == "42"
        assert journal.verify().ok  # meta is not part of the chain


def test_closed_journal_refuses_use(path: Path) -> None:
    journal = Journal.open(path)
    journal.close()
    journal.close()
    with pytest.raises(JournalClosedError):
        journal.append("x", {}, ts=1.0)


def test_a_reader_opens_while_a_writer_holds_the_write_lock(path: Path) -> None:
    """`recall` or `journal verify` beside the running table: opening a current journal writes nothing, so it
    does not wait for (or take) the write lock the table's transaction holds."""
    with Journal.open(path) as journal:
        journal.append("event", {"type": "Note"}, ts=1.0)
    holder = sqlite3.connect(path, isolation_level=None, timeout=0.1)
    holder.execute("BEGIN IMMEDIATE")  # the table, mid-transaction
    try:
        opened: list[int] = []

        def open_and_read() -> None:
            with Journal.open(path) as reader:
                opened.append(reader.last_seq)

        thread = threading.Thread(target=open_and_read)
        thread.start()
        thread.join(timeout=5.0)  # a writing open would wait out sqlite's 10 s busy timeout, then fail
        assert opened == [1]
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_second_connection_reads_while_the_first_appends(path: Path) -> None:
    writer = Journal.open(path)
    reader = Journal.open(path)
    stop = threading.Event()
    problems: list[str] = []

    def read_loop() -> None:
        while not stop.is_set():
            result = reader.verify()
            if not result.ok:
                problems.append(result.reason)
            seqs = [e.seq for e in reader.entries()]
            if seqs != list(range(1, len(seqs) + 1)):
                problems.append(f"gap in {seqs[-5:]}")

    thread = threading.Thread(target=read_loop)
    thread.start()
    try:
        for i in range(200):
            writer.append("tick", {"i": i}, ts=float(i))
    finally:
        stop.set()
        thread.join(timeout=30)
    assert problems == []
    assert reader.last_seq == 200
    writer.close()
    reader.close()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=20, deadline=None)
@given(bodies=st.lists(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5), min_size=1, max_size=20))
def test_any_json_body_reads_back_equal(
    tmp_path_factory: pytest.TempPathFactory, bodies: list[dict[str, Any]]
) -> None:
    with Journal.open(journal_path(tmp_path_factory.mktemp("j"))) as journal:
        written = journal.append_many([("k", body) for body in bodies], ts=1.25)
        assert [entry.body for entry in written] == bodies
        assert list(journal.entries()) == written
        assert journal.verify().ok


def test_cli_verify_passes_then_names_the_first_bad_row(
    filled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = str(filled.parent)
    assert main(["journal", "verify", "--data-dir", data_dir]) == 0
    out = capsys.readouterr().out
    assert "ok" in out and "10 rows" in out and out.count("\n") == 1
    tamper(filled, "UPDATE entries SET body = '{}' WHERE seq = 5")
    assert main(["journal", "verify", "--data-dir", data_dir]) == 1
    assert "first bad row 5" in capsys.readouterr().out


def test_cli_tail_prints_the_last_rows(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "tail", "--data-dir", str(filled.parent), "-n", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["8", "9", "10"]


def test_cli_on_a_missing_journal_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "verify", "--data-dir", str(tmp_path)]) == 2
    assert main(["journal", "tail", "--data-dir", str(tmp_path)]) == 2
    assert "no journal" in capsys.readouterr().err
    assert not (tmp_path / "journal.db").exists()


def test_cli_verify_on_a_file_that_is_not_a_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "journal.db").write_bytes(b"garbage" * 1000)
    assert main(["journal", "verify", "--data-dir", str(tmp_path)]) == 2
    assert "not a journal" in capsys.readouterr().err
