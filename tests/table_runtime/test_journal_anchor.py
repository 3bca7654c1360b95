"""What anchors a journal: its id (the `meta` table), and the exact bytes its hashes cover (docs/journal.md's
test vector, checked against the code)."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

from table_runtime.game.cards import Card
from table_runtime.game.codec import to_dict
from table_runtime.game.inputs import CardDrawn
from table_runtime.journal import GENESIS_HASH, Journal, encode_body, entry_hash, journal_path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "journal.md"


def test_a_new_journal_gets_an_id_that_stays(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        first = journal.journal_id
        journal.append("status", {"type": "Started"}, ts=1.0)
    assert re.fullmatch(r"[0-9a-f]{32}", first)
    with Journal.open(journal_path(tmp_path)) as journal:
        assert journal.journal_id == first
    with Journal.open(journal_path(tmp_path / "other")) as other:
        assert other.journal_id != first  # a new data directory is a new journal


def test_a_journal_written_before_ids_gets_one_on_its_first_open_and_keeps_its_rows(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    with Journal.open(path) as journal:
        journal.append("status", {"type": "Started"}, ts=1.0)
    with sqlite3.connect(path) as db:  # as an earlier version left it: no id in meta
        db.execute("DELETE FROM meta WHERE key = 'journal.id'")
    with Journal.open(path) as journal:
        given = journal.journal_id
        assert journal.verify().ok and journal.last_seq == 1
    assert re.fullmatch(r"[0-9a-f]{32}", given)
    with Journal.open(path) as journal:
        assert journal.journal_id == given


def documented_vector() -> dict[str, str]:
    text = DOCS.read_text(encoding="utf-8")
    block = text.split("Test vector", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    return dict(line.split(" ", 1) for line in block.strip().splitlines())


def test_the_documented_vector_is_what_the_code_hashes_and_stores(tmp_path: Path) -> None:
    vector = documented_vector()
    assert vector["prev_hash"] == GENESIS_HASH
    # Independently of the code: the bytes as docs/journal.md describes them.
    joined = "\n".join(vector[key] for key in ("prev_hash", "seq", "ts", "kind", "body")).encode("utf-8")
    assert hashlib.sha256(joined).hexdigest() == vector["hash"]
    assert entry_hash(GENESIS_HASH, int(vector["seq"]), float(vector["ts"]), vector["kind"], vector["body"]) == (
        vector["hash"])
    # And a real row: the input the display journals when the dealer enters a card by hand.
    body = to_dict(CardDrawn(card=Card.parse("QH"), manual=True, by="Aurélie"))
    body["source"] = "display"
    assert encode_body(body) == vector["body"]
    with Journal.open(journal_path(tmp_path)) as journal:
        entry = journal.append(vector["kind"], body, ts=float(vector["ts"]))
    assert (entry.seq, entry.hash) == (int(vector["seq"]), vector["hash"])
    with sqlite3.connect(journal_path(tmp_path)) as db:
        stored = db.execute("SELECT seq, ts, kind, body, prev_hash, hash FROM entries").fetchone()
    assert stored == (1, 1764585600.1, "input", vector["body"], GENESIS_HASH, vector["hash"])
    assert repr(stored[1]) == vector["ts"]


def test_the_documented_bytes_are_the_vector_s() -> None:
    text = DOCS.read_text(encoding="utf-8")
    hex_block = text.split("The bytes hashed are these", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    data = bytes.fromhex("".join(hex_block.split()))
    vector = documented_vector()
    assert data == "\n".join(vector[key] for key in ("prev_hash", "seq", "ts", "kind", "body")).encode("utf-8")
    assert f"these {len(data)} " in text
