"""The pit page's picture of the floor view: the pit's alarm order, the shift's figures, no table made up."""

from __future__ import annotations

from typing import Any

from casino_floor.pit.picture import FloorPicture
from casino_floor.shifts import Shifts
from casino_floor.tables_view import FloorView
from tests.display.phases import snapshot_of

NOW = 1_764_583_200.0  # 2025-12-01T10:00Z, in the shift that starts at 06:00


def state(table_id: str, seq: int, phase: str = "alarms", *, supervisor: bool = True) -> dict[str, Any]:
    made = snapshot_of(phase)
    made.update(table_id=table_id, seq=seq)
    for alarm in made["alarms"]:
        alarm["kind"] = alarm["kind"] if supervisor else "bank_must_draw"
    return {"schema_version": 1, "table_id": table_id, "journal": f"j-{table_id}", "seq": seq, "ts": NOW,
            "type": "TableState", "snapshot": made}


def round_record(table_id: str, number: int, staked: int, net: int, ts: float = NOW) -> dict[str, Any]:
    return {"schema_version": 1, "table_id": table_id, "journal": f"j-{table_id}", "seq": 10 * number, "ts": ts,
            "type": "RoundRecord",
            "round": {"round": number, "shoe_id": "S", "result": "settled", "alarms": [],
                      "payouts": [{"box": 1, "hand": 0, "owner": "box1", "kind": "original", "staked_cents": staked,
                                   "outcome": "lose", "net_cents": net}]}}  # fmt: skip


def buy_in(table_id: str, seq: int, cents: int, ts: float = NOW) -> dict[str, Any]:
    return {"schema_version": 1, "table_id": table_id, "journal": f"j-{table_id}", "seq": seq, "ts": ts,
            "kind": "event", "type": "BuyInRecorded",
            "body": {"type": "BuyInRecorded", "cents": cents, "tender": "cash", "box": None, "player": "",
                     "by": "dealer", "round": 1, "schema_version": 1}}  # fmt: skip


def test_the_supervisors_alarms_come_first_across_tables_then_by_table_oldest_first() -> None:
    picture = FloorPicture(clock=lambda: NOW)
    picture.apply("state", state("T1", 5, supervisor=False))
    picture.apply("state", state("T2", 5))
    alarms = picture.overview()["alarms"]
    order = [(alarm["table_id"], alarm["kind"]) for alarm in alarms]
    assert order == [("T2", "wrong_payout"), ("T1", "bank_must_draw"), ("T1", "bank_must_draw"),
                     ("T1", "bank_must_draw"), ("T2", "command_refused"), ("T2", "bank_must_draw")]
    assert [alarm["seq"] for alarm in alarms[1:4]] == sorted(alarm["seq"] for alarm in alarms[1:4])


def test_the_floors_own_alarms_are_first() -> None:
    picture = FloorPicture(clock=lambda: NOW)
    picture.apply("state", state("T1", 5))
    picture.apply("floor_alarms", {"table_id": "T1", "id": 4, "kind": "feed_gap", "journal": "j-T1", "first_seq": 2,
                                   "last_seq": 3, "message": "seq 2..3 missing", "raised_at": NOW})
    first = picture.overview()["alarms"][0]
    assert (first["source"], first["kind"]) == ("floor", "feed_gap")


def test_the_pit_counts_the_shift_now_only() -> None:
    picture = FloorPicture(FloorView(shifts=Shifts((6, 14, 22))), clock=lambda: NOW)
    picture.apply("rounds", round_record("T1", 1, 1000, -1000, ts=NOW - 6 * 3600))  # the night shift's
    picture.apply("rounds", round_record("T1", 2, 3000, 1500))
    picture.apply("rounds", round_record("T2", 1, 1000, -1000))
    overview = picture.overview()
    assert overview["shift"] == "2025-12-01T06"
    assert {key: overview["pit"][key] for key in ("handle_cents", "drop_cents", "win_cents", "hold_pct",
                                                  "win_to_handle_pct")} == \
        {"handle_cents": 4000, "drop_cents": 0, "win_cents": -500, "hold_pct": None,
         "win_to_handle_pct": -12.5}  # fmt: skip
    assert [table["handle_cents"] for table in overview["tables"]] == [3000, 1000]
    picture.apply("events", buy_in("T1", 5, 2000, ts=NOW - 6 * 3600))  # the night shift's drop
    picture.apply("events", buy_in("T1", 7, 10_000))
    picture.apply("events", buy_in("T1", 7, 10_000))  # heard twice: counted once
    picture.apply("events", buy_in("T2", 3, 15_000))
    overview = picture.overview()
    assert {key: overview["pit"][key] for key in ("buy_ins", "drop_cents", "hold_pct")} == \
        {"buy_ins": 2, "drop_cents": 25_000, "hold_pct": -2.0}  # fmt: skip
    assert [(table["drop_cents"], table["hold_pct"]) for table in overview["tables"]] == [(10_000, -15.0),
                                                                                          (15_000, 6.67)]


def test_a_page_asking_for_a_table_the_feed_never_named_makes_none_up() -> None:
    picture = FloorPicture(clock=lambda: NOW)
    picture.apply("state", state("T1", 5, "betting"))
    assert picture.snapshot("T9") is None
    assert [table["table_id"] for table in picture.overview()["tables"]] == ["T1"]
    snapshot = picture.snapshot("T1")
    assert snapshot is not None and snapshot["phase"] == "betting"
    table = picture.overview()["tables"][0]
    # No status heard yet; boxes 1-5 and 7 staked, box 6 empty; shoe, chips and broker online.
    assert (table["online"], table["boxes_in_play"], table["boxes"], table["devices_online"]) == (None, 6, 7, 3)
