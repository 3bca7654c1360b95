"""The pit's read model folds real feed messages of real journals, idempotently and in any order."""

from __future__ import annotations

import random
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from casino_floor.shifts import Shifts
from casino_floor.tables_view import FloorView
from table_runtime.core.alarm_ledger import SUPERVISOR_ACK_KINDS, AlarmLedger, AlarmStep
from table_runtime.core.journal_rows import AlarmCleared, JournalRow
from table_runtime.feed.messages import Topics, state_message
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.journal import JournalEntry
from tests.floor.journals import feed_messages, journal_id, play

CHIP_RULE = citations.CHIP_INTEGRITY


def _expected_money(journal_entries: list[JournalEntry]) -> tuple[int, int, int]:
    """Rounds, handle and house win from the RoundSettled events (not the round records the view reads); an undo
    after the settlement settles the round again: the last settlement counts."""
    settlements: dict[int, list[dict[str, int]]] = {}
    for entry in journal_entries:
        body = entry.body
        if body.get("type") == "RoundSettled":
            settlements[body["round"]] = body["payouts"]
    payouts = [payout for paid in settlements.values() for payout in paid]
    return len(settlements), sum(p["staked_cents"] for p in payouts), -sum(p["net_cents"] for p in payouts)


def test_the_view_counts_each_round_once_and_keeps_the_open_alarms(tmp_path: Path) -> None:
    with play(tmp_path / "t1.db", "T1", 30, error_rate=0.3) as journal:
        messages = list(feed_messages(journal, "casino", "T1"))
        rows = list(journal.entries())
        ident = journal_id(journal)
    settled, handle, win = _expected_money(rows)
    voided = sum(1 for entry in rows if entry.body.get("type") == "RoundVoided")
    raised = {entry.body["id"] for entry in rows if entry.kind == "alarm"}
    cleared = {entry.body["id"] for entry in rows if entry.kind == "alarm_cleared"}
    assert settled > 10 and raised
    view = FloorView(shifts=Shifts((0,)))
    shuffled = messages * 2
    random.Random(3).shuffle(shuffled)  # at least once, out of order
    for _, name, payload in shuffled:
        view.apply(name, payload)
    table = view.overview()["tables"][0]
    assert table["table_id"] == "T1" and table["journal"] == ident
    assert table["seq"] == rows[-1].seq
    assert sum(shift["rounds"] for shift in table["shifts"]) == settled + voided
    assert sum(shift["handle_cents"] for shift in table["shifts"]) == handle
    assert sum(shift["drop_cents"] for shift in table["shifts"]) == 0  # no buy-in recorded: no drop
    assert sum(shift["win_cents"] for shift in table["shifts"]) == win
    assert {alarm["id"] for alarm in table["alarms"]} == raised - cleared


def test_the_state_gives_phase_limits_boxes_and_supervisor_alarms_come_first(tmp_path: Path) -> None:
    view = FloorView()
    topics = Topics("casino", "T2")
    snapshot = {"seq": 40, "round": 7, "phase": "playing", "limits": {"min_cents": 500, "max_cents": 500000},
                "boxes": [{"box": 3, "owner": "p3", "seated_cents": 1000,
                           "hands": [{"stakes_cents": 2000}, {"stakes_cents": 1000}]}],
                "shoe": {"shoe_id": "S2", "cards_left": 200}, "devices": {"shoe": "online"},
                "alarms": [{"id": 30, "seq": 30, "kind": str(AlarmKind.BANK_MUST_DRAW), "box": None,
                            "message": "the bank must draw", "rule": citations.BANK_DRAWS},
                           {"id": 35, "seq": 35, "kind": str(AlarmKind.PAST_POSTING), "box": 3,
                            "message": "chips added to box3", "rule": "table check, docs/rules.md « Past-posting »"}]}
    view.apply("state", state_message(topics, snapshot, journal="a" * 32, ts=time.time()).payload)
    older = dict(snapshot, seq=20, phase="betting", alarms=[])
    # A stale retained copy:
    view.apply("state", state_message(topics, older, journal="a" * 32, ts=time.time()).payload)
    table = view.overview()["tables"][0]
    assert (table["phase"], table["round"], table["limits"]["min_cents"]) == ("playing", 7, 500)
    assert table["boxes"] == [{"box": 3, "owner": "p3", "stakes_cents": 3000}]
    assert table["shoe"]["shoe_id"] == "S2" and table["devices"] == {"shoe": "online"}
    assert AlarmKind.PAST_POSTING in SUPERVISOR_ACK_KINDS
    assert [alarm["id"] for alarm in table["alarms"]] == [35, 30]
    assert table["alarms"][0]["supervisor"] is True
    view.apply("alarms", {"table_id": "T2", "seq": 41, "ts": time.time(), "type": "AlarmCleared",
                          "alarm": {"id": 35, "by": "supervisor"}})
    assert [alarm["id"] for alarm in view.overview()["tables"][0]["alarms"]] == [30]


def test_floor_alarms_show_until_cleared() -> None:
    view = FloorView()
    row = {"table_id": "T3", "id": 1, "kind": "gap", "journal": "j", "first_seq": 5, "last_seq": 9,
           "message": "rows 5..9 missing", "raised_at": 1.0, "cleared_at": None}
    view.apply("floor_alarms", row)
    assert view.overview()["tables"][0]["floor_alarms"][0]["first_seq"] == 5
    assert view.overview()["open_alarms"] == 1
    view.apply("floor_alarms", dict(row, cleared_at=2.0))
    assert view.overview()["tables"][0]["floor_alarms"] == []


def test_shifts_name_and_bound_a_moment() -> None:
    shifts = Shifts((6, 14, 22))
    ts = 1796118831.0  # 2026-12-01 ~09:53 UTC
    assert shifts.name_of(ts) == "2026-12-01T06"
    start, end = shifts.bounds("2026-12-01T22")
    assert end - start == 8 * 3600 and shifts.name_of(start + 7 * 3600) == "2026-12-01T22"
    assert shifts.name_of(start - 1) == "2026-12-01T14"
    assert shifts.name_of(shifts.bounds("2026-12-01T06")[0] - 1) == "2026-11-30T22"


def test_a_storms_count_on_the_events_topic_updates_the_open_alarm() -> None:
    """Beside the service the view reads ``events`` only: an ``alarm_updated`` row counts on the open alarm."""
    view = FloorView(shifts=Shifts((0,)))
    alarm = {"id": 3, "kind": str(AlarmKind.COUNTERFEIT_CHIP), "box": 2, "message": "counterfeit chip", "count": 1,
             "rule": CHIP_RULE, "amounts": {}, "seq": 3}
    header = {"schema_version": 1, "table_id": "T1", "journal": "j1", "ts": time.time()}
    view.apply("events", {**header, "seq": 3, "type": "AlarmRaised", "kind": "alarm", "body": alarm})
    view.apply("events", {**header, "seq": 4, "type": "AlarmUpdated", "kind": "alarm_updated",
                          "body": {**alarm, "count": 40, "message": "40 counterfeit chips"}})
    (shown,) = view.overview()["tables"][0]["alarms"]
    assert shown["count"] == 40 and shown["message"] == "40 counterfeit chips"


def test_the_view_keeps_three_shifts_of_money_and_counts_a_round_once_within_them() -> None:
    """A view that runs for weeks holds a bounded amount per table: the last three shifts' money and rounds."""
    shifts = Shifts((0, 8, 16))
    view = FloorView(shifts=shifts)
    start = 1_780_000_000 - 1_780_000_000 % 86_400  # a midnight (UTC)

    def settle(round_number: int, hours: float) -> None:
        view.apply("rounds", {"schema_version": 1, "table_id": "T1", "journal": "j1", "seq": round_number,
                              "ts": start + hours * 3600, "type": "RoundRecord",
                              "round": {"round": round_number, "result": "settled", "payouts": [
                                  {"staked_cents": 1000, "net_cents": -1000}]}})

    for index in range(15):  # five shifts of three rounds
        settle(index + 1, index * 8 / 3)
    settle(15, 14 * 8 / 3)  # the newest again: counted once
    settle(1, 0.0)  # the oldest again: a shift no longer kept, not counted
    table = view.overview()["tables"][0]
    assert [shift["shift"] for shift in table["shifts"]] == [shifts.name_of(start + hours * 3600)
                                                             for hours in (16, 24, 32)]
    assert [shift["rounds"] for shift in table["shifts"]] == [3, 3, 3]
    assert all(shift["handle_cents"] == 3000 and shift["win_cents"] == 3000 for shift in table["shifts"])
    assert sum(len(seen) for seen in view.table("T1").rounds_seen.values()) == 9


def test_a_storms_real_update_keeps_the_alarms_rule_and_round_in_any_order() -> None:
    """An ``alarm_updated`` row carries the count, the last message and amounts, not the rule or the round: the
    pit shows the open alarm as the table's own ledger counts it (AlarmRaised.counted), whichever arrives first,
    and a late, older count does not take it back."""
    from table_runtime.core.journal_rows import AlarmRaised, AlarmUpdated
    from table_runtime.game.events import Alarm

    first = Alarm(kind=AlarmKind.COUNTERFEIT_CHIP, box=2, rule=CHIP_RULE, message="1 counterfeit chip",
                  amounts=(("chips", 1),))
    raised = AlarmRaised.of(first, 3, 7)
    storm = [Alarm(kind=AlarmKind.COUNTERFEIT_CHIP, box=2, rule=CHIP_RULE,
                   message=f"{count} counterfeit chips", amounts=(("chips", count),)) for count in (40, 41)]
    later = [AlarmUpdated.of(raised, alarm, alarm.amounts[0][1] - 1) for alarm in storm]
    header = {"schema_version": 1, "table_id": "T1", "journal": "j1", "ts": time.time()}
    messages = [("events", {**header, "seq": 3, "type": "AlarmRaised", "kind": "alarm", "body": raised.to_json()}),
                *(("alarms", {**header, "seq": 4 + index, "type": "AlarmUpdated", "alarm": update.to_json()})
                  for index, update in enumerate(later))]
    for order in ([0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1]):
        view = FloorView(shifts=Shifts((0,)))
        for index in order:
            view.apply(*messages[index])
        (shown,) = view.overview()["tables"][0]["alarms"]
        assert (shown["count"], shown["message"], shown["rule"], shown["round"], shown["id"]) == (
            41, "41 counterfeit chips", CHIP_RULE, 7, 3), order
        assert shown["amounts"] == {"chips": 41}


STORM_KINDS = (AlarmKind.COUNTERFEIT_CHIP, AlarmKind.COMMAND_REFUSED)  # counted on their open alarm
SINGLE_KINDS = (AlarmKind.PAST_POSTING, AlarmKind.BANK_MUST_DRAW)  # an alarm each


@st.composite
def storms(draw: st.DrawFn) -> tuple[list[tuple[str, dict[str, object]]], list[dict[str, object]]]:
    """A table's alarm rows as its own ledger journals them (raised, counted in storms, cleared), step by step, and
    the open alarms its ledger holds at the end."""
    ledger = AlarmLedger()
    rows: list[tuple[str, dict[str, object]]] = []
    seq = 0
    for _ in range(draw(st.integers(1, 25))):
        open_ids = [alarm.id for alarm in ledger.open_alarms]
        if open_ids and draw(st.integers(0, 3)) == 0:  # a clear now and then
            alarm_id = draw(st.sampled_from(open_ids))
            seq += 1
            rows.append(("alarm_cleared", AlarmCleared(id=alarm_id, by="dealer").to_json()))
            ledger.cleared(alarm_id)
            continue
        step_rows: list[JournalRow] = []
        step = AlarmStep(ledger, step_rows)
        for _ in range(draw(st.integers(1, 4))):
            kind = draw(st.sampled_from(STORM_KINDS + SINGLE_KINDS))
            count = draw(st.integers(1, 3))
            seq = step.add(Alarm(kind=kind, box=draw(st.sampled_from([None, 1, 2])), rule=CHIP_RULE,
                                 message=f"{kind} x{count} at {seq}", amounts=(("seen", count),), count=count),
                           seq, 0)
        seq = step.flush(seq)
        rows.extend((row.row_kind.value, row.to_json()) for row in step_rows)
    return rows, ledger.active


def _message(kind: str, body: dict[str, object], topic: str) -> tuple[str, dict[str, object]]:
    header = {"schema_version": 1, "table_id": "T1", "journal": "j" * 32, "ts": 1_700_000_000.0}
    if topic == "events":
        return "events", {**header, "kind": kind, "body": body}
    kinds = {"alarm": "AlarmRaised", "alarm_updated": "AlarmUpdated", "alarm_cleared": "AlarmCleared"}
    return "alarms", {**header, "type": kinds[kind], "alarm": body}


@settings(max_examples=150, deadline=None)
@given(storm=storms(), data=st.data())
def test_the_pits_alarms_are_the_tables_ledger_whatever_the_order_of_delivery(
        storm: tuple[list[tuple[str, dict[str, object]]], list[dict[str, object]]], data: st.DataObject) -> None:
    """Every row delivered at least once (some twice), in any order, on either topic: the pit shows the open alarms
    the table's ledger holds, each with its count, last message and amounts (core/alarm_ledger.py for both)."""
    rows, table_alarms = storm
    delivered = data.draw(st.permutations(rows + data.draw(st.lists(st.sampled_from(rows), max_size=5))))
    view = FloorView(shifts=Shifts((0,)))
    for kind, body in delivered:
        view.apply(*_message(kind, body, data.draw(st.sampled_from(["events", "alarms"]))))
    shown = {alarm["id"]: alarm for alarm in view.overview()["tables"][0]["alarms"]}
    fields = ("kind", "box", "count", "message", "amounts", "rule")
    assert {alarm_id: tuple(alarm[name] for name in fields) for alarm_id, alarm in shown.items()} == {
        alarm["id"]: tuple(alarm[name] for name in fields) for alarm in table_alarms}
