"""The floor decodes and re-encodes each row with orjson for speed: the text it hashes is still the journal's own,
for every value a body can hold (integers past 64 bits, floats orjson writes differently, text beyond ASCII)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from casino_floor.integrity import Row, decode_payload
from table_runtime.feed.messages import encode_payload, event_payload
from table_runtime.journal import Journal, encode_body

BODIES: list[dict[str, Any]] = [
    {"type": "CardDrawn", "card": "AS", "index": 3},
    {"type": "Note", "big": 2**70, "negative": -(2**65), "edge": 2**63},  # orjson reads these as floats
    {"type": "Note", "floats": [1e16, 1e-07, 0.1, 2.5, 123456789.125, -0.0]},  # some written otherwise by orjson
    {"type": "Note", "text": "Mise refusée — « boîte 3 » \u2603", "nested": {"z": [None, True, False], "a": {}}},
]


@pytest.mark.parametrize("body", BODIES)
def test_a_row_sent_by_a_table_hashes_as_the_journal_wrote_it(tmp_path: Path, body: dict[str, Any]) -> None:
    with Journal.open(tmp_path / "journal.db") as journal:
        entry = journal.append("event", body, ts=1_700_000_000.25)
        sent = encode_payload(event_payload("T1", journal.journal_id, entry))
    payload = decode_payload(sent)
    assert json.dumps(payload) == json.dumps(json.loads(sent))  # the same values, of the same types
    row = Row.from_payload(payload)
    assert row.hash_ok and row.hash == entry.hash
    assert row.body == encode_body(body)


def test_what_is_not_json_is_refused_as_before() -> None:
    for raw in (b"{", b"\xff\xfe", b"[1, 2"):
        with pytest.raises(ValueError):
            decode_payload(raw)
