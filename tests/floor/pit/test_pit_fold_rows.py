"""The pit page folds an ``events`` message of many rows at once (`FloorPicture.apply_all`): the page it draws is
the page folding each row alone draws, whatever the feed does (rows again, out of order, two journals, rows
that are not the table's)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino_floor.pit.picture import FloorPicture
from simulators.fast_table import FastTable
from table_runtime.journal import Journal, journal_path
from tests.floor.journals import feed_messages
from tests.table_runtime.staff.staff_table import staff_controller, staff_desk, staff_registry

# Rows that are no table's: the per-row fold skips them, so must the fold of a message.
_STRAYS: list[dict[str, Any]] = [
    {"schema_version": 1, "journal": "j", "seq": 3, "ts": 1.0, "kind": "event", "body": {}},  # no table
    {"schema_version": 1, "table_id": "", "journal": "j", "seq": 3, "ts": 1.0, "kind": "round", "body": {}},
    {"schema_version": 1, "table_id": "T1", "journal": 7, "seq": "x", "ts": None, "kind": "alarm", "body": []},
    {"schema_version": 1, "table_id": "T2", "journal": "j", "seq": 2, "ts": 10**400, "kind": "round",  # no double
     "body": {"round": 1}},
]


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Two tables' ``events`` rows as the feed sends them, each with a dealer logged in; T1 on two journals (a
    table whose journal was replaced)."""
    directory = tmp_path_factory.mktemp("fold-rows")
    out: list[dict[str, Any]] = []
    for name, table_id, seed in (("a", "T1", 3), ("b", "T2", 4), ("c", "T1", 5)):
        (directory / name).mkdir()
        registry = staff_registry(directory / name)
        with Journal.open(journal_path(directory / name)) as journal:
            controller = staff_controller(journal)
            staff_desk(controller, registry).take_table("D1", "pin")
            FastTable(controller, seed=seed, error_rate=0.3).run(3)
            out += [{**payload, "table_id": table_id} for _, topic_name, payload in
                    feed_messages(journal, "casino", "T1") if topic_name == "events"]
    return out


def _page(picture: FloorPicture) -> dict[str, Any]:
    return {"overview": picture.overview(),
            "snapshots": {table_id: picture.snapshot(table_id) for table_id in ("T1", "T2", "T3")}}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_message_of_many_rows_folds_to_the_page_its_rows_fold_to_one_by_one(
        rows: list[dict[str, Any]], data: st.DataObject) -> None:
    # The feed: the rows in order with some sent again, some runs swapped, strays among them, cut into messages.
    order = list(range(len(rows)))
    for _ in range(data.draw(st.integers(0, 6), label="swaps")):
        at = data.draw(st.integers(0, len(order) - 2))
        width = data.draw(st.integers(1, min(40, len(order) - at - 1)))
        order[at:at + 2 * width] = order[at + width:at + 2 * width] + order[at:at + width]
    again = data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=30), label="again")
    stream = [rows[index] for index in order + again] + _STRAYS
    stream = data.draw(st.permutations(stream), label="stream") if data.draw(st.booleans(), label="shuffled") \
        else stream
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(stream) - 1), max_size=80), label="cuts")))
    messages = [stream[start:end] for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    now = max(row["ts"] for row in rows)

    one_by_one, at_once = FloorPicture(clock=lambda: now), FloorPicture(clock=lambda: now)
    # A state far ahead of T1's first journal: its rows' phases are older, those of its next journal are not.
    ahead = {"schema_version": 1, "table_id": "T1", "journal": rows[0]["journal"], "seq": 10**6, "ts": now,
             "snapshot": {"phase": "paused", "round": 99}}
    for picture in (one_by_one, at_once):
        picture.apply_all("state", [copy.deepcopy(ahead)])
    for message in messages:
        told = {table for row in message if (table := one_by_one.apply("events", copy.deepcopy(row))) is not None}
        assert at_once.apply_all("events", copy.deepcopy(message)) == told

    assert _page(at_once) == _page(one_by_one)


def test_the_feed_folded_shows_both_tables_their_money_and_their_dealers(rows: list[dict[str, Any]]) -> None:
    """What the comparison above covers: the feed in order, in one message, draws every part of the page."""
    picture = FloorPicture(clock=lambda: max(row["ts"] for row in rows))
    assert picture.apply_all("events", rows) == {"T1", "T2"}
    overview = picture.overview()
    assert [table["table_id"] for table in overview["tables"]] == ["T1", "T2"]
    assert overview["pit"]["rounds"] == 9 and overview["pit"]["handle_cents"] > 0  # three journals, three rounds each
    assert {dealer["table_id"]: dealer["rounds"] for dealer in overview["dealers"]} == {"T1": 3, "T2": 3}
    raised = next(index for index, row in enumerate(rows) if row["kind"] == "alarm")
    picture = FloorPicture()
    picture.apply_all("events", rows[:raised + 1])
    assert sum(len(table["alarms"]) for table in picture.overview()["tables"]) == 1
