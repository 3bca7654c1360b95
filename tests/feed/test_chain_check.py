"""The consumer's chain check (table_runtime/feed/chain_check.py) on rows of a real journal: what a local check
cannot see is found off the table."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from table_runtime.feed.chain_check import ChainCheck
from table_runtime.feed.messages import event_payload
from table_runtime.journal import Journal, journal_path

from .support import entry_for


def rows(path: Path, start: int, stop: int) -> tuple[str, list[dict[str, Any]]]:
    """Append entries start..stop-1 to the journal at `path`; its id and the events payloads of all its rows."""
    with Journal.open(path) as journal:
        for index in range(start, stop):
            journal.append(*entry_for(index), ts=1764585600.0 + index / 8)
        return journal.journal_id, [event_payload("T1", journal.journal_id, entry) for entry in journal.entries()]


def head(journal: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"table_id": "T1", "journal": journal, "seq": payload["seq"], "hash": payload["hash"]}


def test_an_intact_stream_with_repeats_finds_nothing(tmp_path: Path) -> None:
    journal, payloads = rows(journal_path(tmp_path), 0, 60)
    check = ChainCheck()
    for payload in [*payloads[:40], *payloads[20:]]:
        assert check.event(payload) == []
    assert check.head(head(journal, payloads[-1])) == [] and check.head(head(journal, payloads[-1])) == []
    assert check.findings == 0


def test_a_row_altered_on_the_way_is_broken(tmp_path: Path) -> None:
    _, payloads = rows(journal_path(tmp_path), 0, 10)
    check = ChainCheck()
    for payload in payloads[:4]:
        check.event(payload)
    altered = {**payloads[4], "body": {**payloads[4]["body"], "card": "KS"}}
    (finding,) = check.event(altered)
    assert finding.kind == "broken" and (finding.first, finding.last) == (5, 5)
    assert finding.text.startswith(f"BROKEN T1 journal {payloads[0]['journal']}: row 5: hash ")


def test_a_forged_row_with_its_own_hash_does_not_link_to_the_row_before(tmp_path: Path) -> None:
    _, payloads = rows(journal_path(tmp_path), 0, 10)
    _, others = rows(journal_path(tmp_path / "other"), 100, 110)  # a well-hashed row of another chain
    check = ChainCheck()
    for payload in payloads[:4]:
        check.event(payload)
    (finding,) = check.event({**others[4], "journal": payloads[0]["journal"]})
    assert finding.kind == "broken" and "prev_hash is not the hash of row 4 as published" in finding.text


def test_rows_cut_and_the_head_set_back_then_a_new_row_is_a_rewrite(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    journal, before = rows(path, 0, 100)
    check = ChainCheck()
    for payload in before:
        check.event(payload)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM entries WHERE seq > 90")
        db.execute("UPDATE head SET seq = 90, hash = ? WHERE id = 1", (before[89]["hash"],))
    _, after = rows(path, 500, 501)  # the restarted table writes row 91 again
    with Journal.open(path) as reopened:
        assert reopened.verify().ok  # what the table's own check cannot see
    assert [check.event(payload) for payload in after[:90]] == [[]] * 90
    (finding,) = check.event(after[90])
    assert (finding.kind, finding.first, finding.last) == ("rewritten", 91, 100)
    assert finding.text == (
        f"REWRITTEN T1 journal {journal}: row 91 sent again has hash {after[90]['hash'][:12]}, published before "
        f"as {before[90]['hash'][:12]}: rows 91..100 (10) published before are not in the journal any more")
    assert check.head(head(journal, after[90])) == []  # said once


def test_a_head_back_below_the_rows_received_is_a_truncation(tmp_path: Path) -> None:
    journal, payloads = rows(journal_path(tmp_path), 0, 100)
    check = ChainCheck()
    for payload in payloads:
        check.event(payload)
    (finding,) = check.head(head(journal, payloads[49]))
    assert (finding.kind, finding.first, finding.last) == ("truncated", 51, 100)
    assert finding.text == (f"TRUNCATED T1 journal {journal}: the journal's head is back at row 50: "
                            "rows 51..100 (50) published before are gone from it")
    assert check.head(head(journal, payloads[49])) == []


def test_a_head_ahead_is_checked_when_its_row_comes(tmp_path: Path) -> None:
    journal, payloads = rows(journal_path(tmp_path), 0, 20)
    check = ChainCheck()
    assert check.head({**head(journal, payloads[9]), "hash": "b" * 64}) == []
    for payload in payloads[:9]:
        assert check.event(payload) == []
    (finding,) = check.event(payloads[9])
    assert finding.kind == "rewritten" and finding.first == 10


def test_another_journal_is_a_new_journal_and_its_seqs_start_again(tmp_path: Path) -> None:
    old, first = rows(journal_path(tmp_path / "a"), 0, 30)
    new, second = rows(journal_path(tmp_path / "b"), 0, 5)
    check = ChainCheck()
    for payload in first:
        check.event(payload)
    (finding,) = check.event(second[0])
    assert (finding.kind, finding.journal, finding.previous_journal) == ("new_journal", new, old)
    assert finding.text == (f"NEW JOURNAL T1: journal {new} from row 1 replaces journal {old} "
                            "(published up to row 30); seq starts again")
    assert [check.event(payload) for payload in second[1:]] == [[]] * 4
