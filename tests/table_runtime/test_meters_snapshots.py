"""The lifetime meters' snapshots (core/meters_snapshots.py), `table-runtime meters`, the RAM clear
(`table-runtime journal clear`) and who changed the configuration: through the controller and the commands, on
real journals."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_runtime.cli import main
from table_runtime.core.meters_snapshots import day_ends, gaming_day
from table_runtime.feed.messages import Topics, messages_for_entry
from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Confirm, Next, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

RULES, LIMITS = profile("fr-casino"), TableLimits()
OPENER = {"50000": 20}  # 10,000.00 €
METERS_SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "feed" / "schemas" / "meters.json")
                           .read_text(encoding="utf-8"))
DAY = dt.datetime(2026, 12, 1, 5, 59, tzinfo=dt.UTC).timestamp()  # one minute before the gaming day ends


class Clock:
    """The time the table reads: moved by the test, a millisecond more at each look."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def controller_on(journal: Journal, clock: Clock, **options: Any) -> TableController:
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal, clock=clock, **options)


def ok(controller: TableController, name: str, args: dict[str, Any], role: str = "dealer") -> None:
    reply = controller.press(name, args, role=role, source="display")
    assert reply["ok"], reply


def play_round(controller: TableController) -> None:
    """Box 1 stakes 10.00, T 6 against the bank's T, stands; the bank draws 2 then T: 22, box 1 wins 10.00."""
    controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),)), source="chips")
    for code in ("TD", "TC", "6D"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    controller.submit(Next(), source="panel")
    for code in ("2S", "TH"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    controller.submit(Confirm(), source="panel")


def shuffle(controller: TableController) -> None:
    controller.submit(ShoeShuffled(shoe_id="S1"), source="shoe")
    for code in ("9C", "9D", "9H", "9S", "8C"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")


def command_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_a_seance_s_fills_credits_and_tips_count_into_the_meters_and_its_close_is_snapshotted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal, Clock(DAY - 3600))
        shuffle(controller)
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 30000, "box": 1})
        ok(controller, "FILL", {"chips": OPENER})
        meters = controller.core.meters.view()
        assert meters["fills_cents"] == 0  # asked, not confirmed: the chips have not moved
        ok(controller, "SLIP_CONFIRM", {"number": 1}, role="supervisor")
        ok(controller, "CREDIT", {"chips": {"50000": 10}})
        ok(controller, "SLIP_CONFIRM", {"number": 2}, role="supervisor")
        play_round(controller)
        ok(controller, "TIP", {"box": 2, "cents": 500})
        ok(controller, "TIP", {"box": 2, "cents": 200})
        expected = controller.core.seances.current
        assert expected is not None
        ok(controller, "SEANCE_CLOSE", {"chips": {"50000": 30}})
        meters = controller.core.meters.view()
        assert (meters["fills_cents"], meters["fills"], meters["credits_cents"], meters["credits"]) == (
            1_000_000, 1, 500_000, 1)
        assert (meters["tips_cents"], meters["tips"], meters["drop_cents"]) == (700, 2, 30000)
        assert meters["boxes"]["1"]["drop_cents"] == 30000 and meters["boxes"]["1"]["tips_cents"] == 0
        assert (meters["boxes"]["2"]["tips_cents"], meters["boxes"]["2"]["tips"]) == (700, 2)
        assert (meters["rounds"], meters["handle_cents"], meters["paid_cents"]) == (1, 1000, 1000)
        # The close's snapshot: in the close's own transaction, right after its input and events.
        rows = list(journal.entries())
        close = next(row for row in rows if row.kind == "input" and row.body["type"] == "SeanceClosed")
        (snapshot,) = [row for row in rows if row.kind == "meters"]
        assert snapshot.ts == close.ts and snapshot.seq > close.seq
        assert [row.kind for row in rows[close.seq:snapshot.seq - 1]] == ["event"]  # its SeanceUpdated, then it
        assert snapshot.body["reason"] == "seance_closed" and snapshot.body["seance"] == 1
        assert snapshot.body["meters"] == meters and snapshot.body["day"] == gaming_day(DAY - 3600)
        # On the feed: the row on `events`, and the snapshot on `meters`, as docs/feed/schemas/meters.json says.
        messages = messages_for_entry(Topics("casino", "T"), snapshot, journal.journal_id)
        assert [message.topic for message in messages] == ["casino/tables/T/events", "casino/tables/T/meters"]
        jsonschema.validate(messages[1].payload, METERS_SCHEMA)
        assert messages[1].payload["snapshot"]["meters"] == meters

    report = command_json(capsys, "meters", "--data-dir", str(tmp_path), "--json", "--snapshots")
    assert report["meters"] == meters and report["table_id"] == "T"
    assert [(row["seq"], row["reason"]) for row in report["snapshots"]] == [(snapshot.seq, "seance_closed")]
    assert main(["meters", "--data-dir", str(tmp_path), "--snapshots"]) == 0
    text = capsys.readouterr().out
    assert "fills" in text and "10,000.00 € (1)" in text and "seance_closed day 2026-11-30" in text


def test_each_gaming_day_s_end_is_snapshotted_before_the_next_day_s_first_input_and_at_a_start(
        tmp_path: Path) -> None:
    clock = Clock(DAY)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal, clock)
        shuffle(controller)
        play_round(controller)
        before = controller.core.meters.view()
        last = journal.last_seq
        clock.now = DAY + 120  # 06:01: the next gaming day
        play_round(controller)
        day_end = next(row for row in journal.entries(last) if row.kind == "meters")
        assert day_end.seq == last + 1  # alone, before the new day's first row
        assert day_end.body["reason"] == "day_end" and day_end.body["day"] == "2026-11-30"
        assert day_end.body["meters"] == before and before["rounds"] == 1
        play_round(controller)  # the same day: no more snapshot
        assert [row.body["day"] for row in journal.entries(kinds=("meters",))] == ["2026-11-30"]
        after = controller.core.meters.view()

    clock.now = DAY + 3 * 86400  # the table off for three days: the day it last played ends at the start
    with Journal.open(journal_path(tmp_path)) as journal:
        last = journal.last_seq
        controller_on(journal, clock)
        rows = list(journal.entries(last))
        assert [row.kind for row in rows] == ["meters", "status"]  # the day's end, then Started
        assert rows[0].body["day"] == "2026-12-01" and rows[0].body["meters"] == after
        assert rows[1].body["type"] == "Started"


def test_a_ram_clear_keeps_the_old_journal_and_journals_who_did_it_and_the_meters_it_closed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = journal_path(tmp_path)
    with Journal.open(path) as journal:
        controller = controller_on(journal, Clock(DAY - 3600))
        shuffle(controller)
        play_round(controller)
        play_round(controller)
        closing = controller.core.meters.view()
        old_id = journal.journal_id
        # While the table holds the journal, no clear: one line, nothing moved.
        capsys.readouterr()
        assert main(["journal", "clear", "--data-dir", str(tmp_path), "--employee", "E1042"]) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and "one journal, one writer" in error and "Traceback" not in error
    with pytest.raises(SystemExit) as refused:
        main(["journal", "clear", "--data-dir", str(tmp_path), "--employee", "not an id!"])
    assert refused.value.code == 2 and "not an employee id" in capsys.readouterr().err

    assert main(["journal", "clear", "--data-dir", str(tmp_path), "--employee", "E1042"]) == 0
    out = capsys.readouterr().out
    (kept,) = tmp_path.glob("journal.cleared-*.db")
    assert old_id in kept.name and kept.name in out and "E1042" in out
    with Journal.open(kept) as old:
        last = list(old.entries())[-1]
        assert last.body["reason"] == "journal_closed" and last.body["employee"] == "E1042"
        assert last.body["meters"] == closing and last.body["next_file"] == kept.name
        old_head = {"seq": last.seq, "hash": last.hash}
    assert main(["journal", "verify", "--data-dir", str(tmp_path)]) == 0 and "journal ok" in capsys.readouterr().out
    with Journal.open(path) as new:
        (first,) = list(new.entries())
        jsonschema.validate(messages_for_entry(Topics("casino", "T"), first, new.journal_id)[1].payload, METERS_SCHEMA)
        assert first.seq == 1 and first.kind == "meters" and first.body["reason"] == "journal_cleared"
        assert first.body["employee"] == "E1042" and first.body["previous_journal"] == old_id
        assert first.body["previous_head"] == old_head and first.body["meters"] == closing
        assert new.journal_id != old_id
    report = command_json(capsys, "meters", "--data-dir", str(tmp_path), "--json")
    assert report["meters"]["rounds"] == 0 and report["table_id"] is None  # no table started on it yet

    # The next start writes its terms after the clear's row; the meters count again from 0.
    with Journal.open(path) as journal:
        controller = controller_on(journal, Clock(DAY))
        assert [row.kind for row in journal.entries()][:3] == ["meters", "terms", "status"]
        shuffle(controller)
        play_round(controller)
        assert controller.core.meters.view()["rounds"] == 1
    events = command_json(capsys, "events", "--data-dir", str(tmp_path), "--json")
    assert [(event["code"], event["name"]) for event in events][:3] == [
        (105, "journal_cleared"), (103, "new_journal"), (100, "table_started")]
    assert events[0]["detail"]["by"] == "E1042" and events[0]["detail"]["previous_journal"] == old_id
    assert events[0]["detail"]["rounds"] == closing["rounds"] == 2


def test_a_configuration_change_found_at_a_start_names_who_made_it_when_the_start_is_told(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock(DAY)
    for zones, by in (((), None), (("box1",), "E2001"), (("box1", "box2"), None)):
        with Journal.open(journal_path(tmp_path)) as journal:
            controller_on(journal, clock, zones=zones, changed_by=by)
    events = command_json(capsys, "events", "--data-dir", str(tmp_path), "--json")
    changes = [event["detail"] for event in events if event["name"] == "terms_changed"]
    assert [(change["changed"], change["by"]) for change in changes] == [(["zones"], "E2001"), (["zones"], "unknown")]
    assert changes[0]["after"] == {"zones": ["box1"]}
    # The row says it: a reader elsewhere (the floor) reads the same author.
    with Journal.open(journal_path(tmp_path)) as journal:
        assert [row.body.get("by") for row in journal.entries(kinds=("terms",))] == [None, "E2001", None]


@given(st.floats(min_value=-2e9, max_value=5e9))
def test_the_gaming_day_is_the_calendar_s_from_six_in_the_morning_utc(ts: float) -> None:
    started = dt.datetime.fromtimestamp(ts, dt.UTC) - dt.timedelta(hours=6)
    assert gaming_day(ts) == started.date().isoformat()
    ends = dt.datetime.fromisoformat(started.date().isoformat()).replace(hour=6, tzinfo=dt.UTC) + dt.timedelta(days=1)
    assert day_ends(ts) == ends.timestamp()
