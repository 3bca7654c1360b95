"""The snapshot contract: the schema, the example in docs/display.md and every scripted snapshot agree."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import pytest

from bench.display import table_snapshot
from table_runtime.display.schema import RECALLED_ROUND_SCHEMA, SNAPSHOT_SCHEMA
from tests.display.scripted import alarm, being_paid, playing, recalled_round, settlement, with_alarms

DOC = Path(__file__).resolve().parents[2] / "docs" / "display.md"


def doc_example() -> dict[str, Any]:
    """The snapshot example of docs/display.md, its // comments removed."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## The table snapshot (JSON)") :]
    block = section.split("```json\n", 1)[1].split("```", 1)[0]
    parsed: dict[str, Any] = json.loads(re.sub(r"\s*//[^\n]*", "", block))
    return parsed


def test_the_documented_example_follows_the_schema() -> None:
    jsonschema.validate(doc_example(), SNAPSHOT_SCHEMA)


def test_scripted_and_bench_snapshots_follow_the_schema() -> None:
    snapshots = [
        playing(),
        settlement(),
        being_paid(),
        with_alarms(settlement(), alarm(1, "wrong_payout", "m", box_number=3, amounts={"expected_cents": 1})),
        table_snapshot(5),
    ]
    for snapshot in snapshots:
        jsonschema.validate(snapshot, SNAPSHOT_SCHEMA)
    jsonschema.validate(recalled_round(16, 1100), RECALLED_ROUND_SCHEMA)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("phase",), "shuffling"),
        (("boxes", 0, "hands", 0, "total"), "7/17"),
        (("boxes", 0, "hands", 0, "cards", 0), "10S"),
        (("next_card",), "box8.hand0"),
        (("bank", "must_draw"), None),
        (("seq",), -1),
        (("boxes", 0, "seated_cents"), 10.5),
    ],
)
def test_the_schema_rejects_what_the_page_could_not_show(path: tuple[str | int, ...], value: object) -> None:
    broken = copy.deepcopy(playing())
    target: Any = broken
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, SNAPSHOT_SCHEMA)


def test_a_missing_key_is_rejected_an_extra_one_allowed() -> None:
    missing = playing()
    del missing["held_cards"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(missing, SNAPSHOT_SCHEMA)
    extra = settlement()
    extra["boxes"][2]["payouts"][0]["note"] = "3:2 of 1005 cents is 1507.5 cents: paid 1507"
    jsonschema.validate(extra, SNAPSHOT_SCHEMA)


@pytest.mark.parametrize(
    "check",
    [
        {"box8": {"due_cents": 0, "seen_cents": 0}},
        {"box3.hand0": {"due_cents": 0, "seen_cents": 0}},
        {"box3": {"due_cents": 2000}},
        {"box3": {"due_cents": 2000, "seen_cents": -5}},
        {"box3": {"due_cents": "20,00", "seen_cents": 2000}},
    ],
)
def test_the_schema_checks_payout_check_when_present(check: dict[str, Any]) -> None:
    broken = being_paid()
    broken["payout_check"] = check
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, SNAPSHOT_SCHEMA)
