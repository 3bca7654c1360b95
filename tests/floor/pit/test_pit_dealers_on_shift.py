"""The dealer on shift at each table, folded from a real journal's ``events`` payloads (casino_floor/pit/
dealers_on_shift.py): the table's own tally of the stint, each row once whatever the redeliveries; at a restart,
from the rows the store holds since the login."""

from __future__ import annotations

from pathlib import Path

from casino_floor.ingest import Ingest
from casino_floor.pit.dealers_on_shift import DealersOnShift
from casino_floor.pit.picture import FloorPicture
from casino_floor.pit.serve import seed_dealers
from casino_floor.store import FloorStore
from simulators.fast_table import FastTable
from table_runtime.journal import Journal, journal_path
from table_runtime.staff.dealer_work import dealer_work
from tests.floor.journals import feed_messages
from tests.floor.support import store_messages
from tests.table_runtime.staff.staff_table import staff_controller, staff_desk, staff_registry


def test_the_stint_open_is_the_dealer_on_shift_with_the_tables_own_figures(tmp_path: Path) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        desk.take_table("D1", "pin")
        FastTable(controller, seed=3, error_rate=0.3).run(6)
        desk.take_table("D2", "pin")  # a push: D1 out, D2 in
        FastTable(controller, seed=4, error_rate=0.3).run(5)
        events = [payload for _, name, payload in feed_messages(journal, "casino", "T1") if name == "events"]
        (_, open_stint) = dealer_work(journal.entries())
    dealers = DealersOnShift()
    half = len(events) // 2
    for payload in [*events[:half], *events[:half], *events[half:], events[3]]:  # redelivered: counted once
        dealers.apply(payload)
    shown = dealers.on_shift("T1")
    view = open_stint.view()
    assert shown == {"table_id": "T1", "employee": "D2", "since": open_stint.since, "seconds": view["seconds"],
                     "rounds": 5, "rounds_per_hour": view["rounds_per_hour"],
                     "errors_per_100_rounds": view["errors_per_100_rounds"]}
    assert view["rounds_per_hour"] > 0 and dealers.overview() == [shown]
    assert dealers.on_shift("T2") is None


def test_a_logout_leaves_no_dealer_and_a_new_journal_is_the_one_shown(tmp_path: Path) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        desk.take_table("D1", "pin")
        FastTable(controller, seed=3).run(2)
        events = [payload for _, name, payload in feed_messages(journal, "casino", "T1") if name == "events"]
        desk.leave_table()
        after = [payload for _, name, payload in feed_messages(journal, "casino", "T1") if name == "events"]
    dealers = DealersOnShift()
    for payload in events:
        dealers.apply(payload)
    assert dealers.on_shift("T1") is not None
    for payload in after:
        dealers.apply(payload)
    assert dealers.on_shift("T1") is None
    newer = [{**payload, "journal": "new-journal", "ts": payload["ts"] + 1e5} for payload in events]
    for payload in newer:
        dealers.apply(payload)
    assert dealers.on_shift("T1")["employee"] == "D1"  # type: ignore[index]
    assert dealers.apply({"table_id": "T1", "kind": "input", "seq": "x"}) is None  # off the format: ignored


async def test_a_restarted_pit_shows_the_dealer_on_shift_from_the_store(tmp_path: Path, store: FloorStore) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        desk.take_table("D1", "pin")
        FastTable(controller, seed=3, error_rate=0.3).run(4)
        desk.take_table("D2", "pin")
        FastTable(controller, seed=4, error_rate=0.3).run(3)
        messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T1")]
        (_, open_stint) = dealer_work(journal.entries())
    await store_messages(store, Ingest(await store.load_tracks()), messages, now=1_800_000_000.0)
    picture = FloorPicture()
    assert await seed_dealers(picture, store, now=open_stint.last_ts + 60) == 1
    view = open_stint.view()
    assert picture.overview()["dealers"] == [
        {"table_id": "T1", "employee": "D2", "since": open_stint.since, "seconds": view["seconds"], "rounds": 3,
         "rounds_per_hour": view["rounds_per_hour"], "errors_per_100_rounds": view["errors_per_100_rounds"]}]
    for payload in [payload for name, payload in messages if name == "events"][-5:]:  # heard live: counted once
        picture.apply("events", payload)
    assert picture.dealers.on_shift("T1")["rounds"] == 3  # type: ignore[index]
    assert await seed_dealers(picture, store, now=open_stint.last_ts + 13 * 3600) == 0  # heard of too long ago
