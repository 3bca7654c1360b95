"""The pit's read model folds the feed: a round counted once, an older state ignored, the alarms in order."""

from __future__ import annotations

from typing import Any

from casino_floor.pit.overview import PitOverview, hold_basis_points
from tests.display.phases import snapshot_of


def state(table_id: str, seq: int, phase: str = "betting") -> dict[str, Any]:
    made = snapshot_of(phase)
    made.update(table_id=table_id, seq=seq)
    return {"schema_version": 1, "table_id": table_id, "seq": seq, "ts": 1.0, "type": "TableState", "snapshot": made}


def round_record(table_id: str, seq: int, number: int, staked: int, net: int, ts: float = 10.0) -> dict[str, Any]:
    return {"schema_version": 1, "table_id": table_id, "seq": seq, "ts": ts, "type": "RoundRecord",
            "round": {"round": number, "shoe_id": "S", "result": "settled", "alarms": [],
                      "payouts": [{"box": 1, "hand": 0, "owner": "box1", "kind": "original", "staked_cents": staked,
                                   "outcome": "lose", "net_cents": net}]}}  # fmt: skip


def test_a_round_sent_again_after_an_outage_is_counted_once() -> None:
    view = PitOverview()
    assert view.apply("rounds", round_record("T1", 50, 3, 1000, -1000)) == "T1"
    assert view.apply("rounds", round_record("T1", 50, 3, 1000, -1000)) is None
    assert view.apply("rounds", round_record("T1", 90, 4, 3000, 1500)) == "T1"
    pit = view.overview()["pit"]
    assert (pit["drop_cents"], pit["win_cents"], pit["hold_bp"]) == (4000, -500, -1250)


def test_rounds_before_the_shift_started_are_not_the_shifts() -> None:
    view = PitOverview(shift_start=100.0)
    assert view.apply("rounds", round_record("T1", 5, 1, 1000, -1000, ts=99.0)) is None
    assert view.overview()["pit"]["drop_cents"] == 0


def test_a_late_older_state_does_not_replace_a_newer_one() -> None:
    view = PitOverview()
    view.apply("state", state("T1", 20, "split"))
    assert view.apply("state", state("T1", 10, "betting")) is None
    assert view.overview()["tables"][0]["phase"] == "playing"


def test_the_supervisors_alarms_come_first_across_tables() -> None:
    view = PitOverview()
    view.apply("state", state("T2", 5, "alarms"))
    calm = state("T1", 5, "alarms")
    for alarm in calm["snapshot"]["alarms"]:
        alarm["supervisor"] = False
    view.apply("state", calm)
    order = [(alarm["table_id"], alarm["kind"]) for alarm in view.overview()["alarms"]]
    assert order[0] == ("T2", "wrong_payout")
    # Then the dealer's, by table, each table's oldest first.
    assert order[1:] == [("T1", "wrong_payout"), ("T1", "command_refused"), ("T1", "bank_must_draw"),
                         ("T2", "command_refused"), ("T2", "bank_must_draw")]


def test_a_message_of_no_table_or_another_topic_changes_nothing() -> None:
    view = PitOverview()
    assert view.apply("state", {"seq": 1, "snapshot": {}}) is None
    assert view.apply("replay", {"table_id": "T1", "seq": 1}) is None
    assert view.apply("status", {"table_id": "T1", "seq": 1, "status": "offline", "reason": "shutdown"}) == "T1"
    assert view.overview()["tables"][0]["online"] is False


def test_hold_is_rounded_half_away_from_zero_in_basis_points() -> None:
    assert hold_basis_points(1, 3) == 3333
    assert hold_basis_points(2, 3) == 6667
    assert hold_basis_points(-2, 3) == -6667
    assert hold_basis_points(5, 0) is None
