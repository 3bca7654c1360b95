"""The hyper black jack field on the feed (55-4 6°): every message of a real hyper round validates against the
published schemas, and the new bodies say what docs/feed/asyncapi.yaml says: HyperAssigned, BetsLocked's
`hyper`, HyperFieldSettled naming the bank's result once, the hyper payouts in the round record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from table_runtime.feed.messages import Topics, messages_for_entry
from table_runtime.journal import Journal, JournalEntry
from tests.table_runtime.core.hyper_table import play_hyper_round

from .support import validators_by_topic


def test_a_hyper_rounds_messages_validate_and_carry_the_field(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "hyper.db")
    play_hyper_round(journal, "T8")
    validators = validators_by_topic()
    topics = Topics("casino", "T8")
    bodies: dict[str, list[dict[str, Any]]] = {}
    lock_row = None
    for entry in journal.entries():
        if entry.body.get("type") == "BetsLocked":
            lock_row = entry
        for message in messages_for_entry(topics, entry, journal.journal_id):
            payload = json.loads(message.encode())
            validators[message.topic.rsplit("/", 1)[1]].validate(payload)
            if message.topic.endswith("/events"):
                bodies.setdefault(str(payload["type"]), []).append(payload["body"])
    journal.close()
    assert [(body["case"], body["box"], body["cents"]) for body in bodies["HyperAssigned"]] == [
        ("bust", 1, 1000), ("20", 1, 500)]
    (locked,) = bodies["BetsLocked"]
    assert locked["hyper"] == [{"case": "20", "box": 1, "cents": 500, "owner": "box1"},
                               {"case": "bust", "box": 1, "cents": 1000, "owner": "box1"}]
    (settled,) = bodies["HyperFieldSettled"]
    assert (settled["result"], settled["staked_cents"]) == ("bust", 1500)
    (record,) = bodies["RoundRecord"]
    assert {payout["kind"]: payout["outcome"] for payout in record["payouts"]} == {
        "hyper.20": "hyper_lose", "original": "win", "hyper.bust": "hyper_win"}
    assert lock_row is not None  # a case the field does not have is refused by the schema
    broken = JournalEntry(lock_row.seq, lock_row.ts, lock_row.kind,
                          {**locked, "hyper": [{"case": "22", "box": 1, "cents": 500, "owner": "box1"}]},
                          lock_row.prev_hash, lock_row.hash)
    (message,) = [m for m in messages_for_entry(topics, broken, None) if m.topic.endswith("/events")]
    assert not validators["events"].is_valid(json.loads(message.encode()))
