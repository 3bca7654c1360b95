"""The floor decodes and re-encodes each row with orjson for speed: the text it hashes is still the journal's own,
for every value a body can hold (integers past 64 bits, floats orjson writes differently, text beyond ASCII)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from casino_floor import bounds
from casino_floor.ingest import Ingest
from casino_floor.integrity import FloorAlarmKind, PayloadError, Row, decode_payload
from casino_floor.store import Batch
from table_runtime.feed.messages import Topics, encode_payload, event_payload
from table_runtime.feed.row_batches import rows_message
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


@pytest.mark.parametrize("text", [
    '{"seq": 12345678901234567890}', '{"a": [1, 12345678901234567890]}', '{"a":[12345678901234567890]}',
    '{"a": -12345678901234567890}', '{"a":\n 98765432109876543210123}', '{"a": {"b": [{"c":-9223372036854775809}]}}',
])
def test_every_integer_of_19_digits_or_more_is_read_as_the_standard_decoder_reads_it(text: str) -> None:
    decoded = decode_payload(text.encode())
    assert json.dumps(decoded) == json.dumps(json.loads(text))  # an int, exactly (orjson would give a float)


def test_a_run_of_digits_in_a_text_is_no_number_and_orjson_reads_the_message(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A hash holding 19 digits in a row (one message of many rows in five has one) is not sent to the slower
    standard decoder: the standard decoder is made to fail here, so the test fails if it is used."""
    text = '{"hash": "1234567890123456789abc", "prev": "ab12345678901234567890", "ts": 1764412345.1234567890123}'

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the standard decoder was used")

    monkeypatch.setattr("casino_floor.integrity.json.loads", refused)
    assert decode_payload(text.encode()) == {"hash": "1234567890123456789abc", "prev": "ab12345678901234567890",
                                             "ts": 1764412345.1234567890123}


def test_a_message_of_many_shallow_rows_passes_the_bounds_and_one_nested_too_deep_is_refused() -> None:
    rows: list[dict[str, Any]] = [
        {"seq": seq, "body": {"type": "Note", "cards": [["AS", "KD"], ["9H"]], "amounts": {"cents": 100}}}
        for seq in range(1, 201)]
    payload = {"type": "JournalRows", "rows": rows}
    raw = json.dumps(payload).encode()
    assert raw.count(b"{") > bounds.MAX_DEPTH  # past the fast test: the containers are walked
    bounds.plain(payload, raw)
    body: dict[str, Any] = rows[150]["body"]  # at depth 4: the message, its rows, the row, the body
    for lists, refused in ((bounds.MAX_DEPTH - 3, True), (bounds.MAX_DEPTH - 4, False)):
        deep: Any = "bottom"
        for _ in range(lists):
            deep = [deep]
        body["deep"] = deep
        for raw_given in (json.dumps(payload).encode(), None):  # the containers' walk, and the whole walk
            if refused:
                with pytest.raises(bounds.Refused, match="nested more than 64 deep"):
                    bounds.plain(payload, raw_given)
            else:
                bounds.plain(payload, raw_given)


def _nested(levels: int) -> Any:
    deep: Any = "bottom"
    for _ in range(levels):
        deep = [deep]
    return deep


def test_in_a_message_of_many_rows_a_body_nested_too_deep_is_set_aside_alone(tmp_path: Path) -> None:
    """The message's bounds leave each body to its row (`bounds.plain_but_bodies`): a body nested past 64 levels in
    its message is refused with its row, the rows beside it are taken, and a body past orjson's encoder (255 levels)
    is refused before the standard encoder could recurse into it."""
    # The body is at depth 4 in the message, and its list at 5: 60 lists reach depth 64, 61 lists depth 65.
    bodies = [{"type": "Note", "deep": _nested(60)}, {"type": "Note", "deep": _nested(61)},
              {"type": "Note", "deep": _nested(400)}, {"type": "Note", "n": 4}]
    with Journal.open(tmp_path / "journal.db") as journal:
        entries = [journal.append("event", body, ts=1_700_000_000.0 + index) for index, body in enumerate(bodies)]
        topics = Topics("casino", "T1")
        entries += [journal.append("event", {"type": "Pad", "i": i}, ts=1_700_000_100.0) for i in range(70)]
        raw = rows_message(topics, entries, journal.journal_id).encode()
    assert raw.count(b"[") > bounds.MAX_DEPTH  # past the fast test
    batch = Batch()
    taken = Ingest({}, set()).take_rows(decode_payload(raw), batch, topic=topics.events, raw=raw)
    assert [row["seq"] for row in taken] == [1, *range(4, 75)]
    assert [row.seq for row in batch.rows] == [1, *range(4, 75)]
    assert [aside.reason for aside in batch.set_aside] == ["a payload nested more than 64 deep"] * 2
    assert [alarm.kind for alarm in batch.alarms] == [FloorAlarmKind.QUARANTINED] * 2


def test_in_a_message_of_many_rows_what_is_beside_the_bodies_is_still_walked() -> None:
    rows = [{"seq": seq, "body": {"type": "Note"}} for seq in range(1, 80)]
    rows[5]["extra"] = _nested(62)  # a row's own key, its list at depth 4: 62 lists reach 65 levels
    payload: dict[str, Any] = {"type": "JournalRows", "rows": rows}
    with pytest.raises(bounds.Refused, match="nested more than 64 deep"):
        bounds.plain_but_bodies(payload, json.dumps(payload).encode())
    rows[5]["extra"] = _nested(61)
    bounds.plain_but_bodies(payload, json.dumps(payload).encode())
    payload["note"] = {"a": _nested(63)}  # the message's own key, its object at depth 2: 65 levels
    with pytest.raises(bounds.Refused, match="nested more than 64 deep"):
        bounds.plain_but_bodies(payload, json.dumps(payload).encode())


@pytest.mark.parametrize(("field", "value", "error"), [
    ("seq", 0, PayloadError), ("seq", -3, PayloadError), ("seq", 2**63, bounds.Refused),
    ("ts", 10**400, bounds.Refused), ("ts", float("inf"), bounds.Refused), ("ts", float("nan"), bounds.Refused)])
def test_a_row_with_a_seq_or_a_time_the_store_cannot_hold_is_refused_with_its_reason(
        tmp_path: Path, field: str, value: Any, error: type[Exception]) -> None:
    with Journal.open(tmp_path / "journal.db") as journal:
        entry = journal.append("event", {"type": "Note"}, ts=1_700_000_000.25)
        payload = decode_payload(encode_payload(event_payload("T1", journal.journal_id, entry)))
    with pytest.raises(error, match=field):
        Row.from_payload({**payload, field: value})


def test_a_whole_number_time_is_kept_as_a_float(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.db") as journal:
        entry = journal.append("event", {"type": "Note"}, ts=1_700_000_000.25)
        payload = decode_payload(encode_payload(event_payload("T1", journal.journal_id, entry)))
    row = Row.from_payload({**payload, "ts": 1_700_000_000})
    assert type(row.ts) is float and row.ts == 1_700_000_000.0
