"""Who is on shift is the table's state: logins and pushes journaled as inputs, folded, sealed in checkpoints; with
a staff registry DEAL waits for a dealer and a supervisor's action names its supervisor."""

from __future__ import annotations

from pathlib import Path

from simulators.fast_table import FastTable
from table_runtime.core.core_state import checkpoint_state
from table_runtime.core.inputs import ZoneChanged, ZoneChip
from table_runtime.core.journal_rows import row_from_json
from table_runtime.core.record import starting_core
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.journal import Journal, journal_path
from tests.table_runtime.staff.staff_table import (
    DEALER_BADGE,
    SUPERVISOR_BADGE,
    staff_controller,
    staff_desk,
    staff_registry,
)

STAKE = ZoneChanged(zone="box1", chips=(ZoneChip(uid="E004015000000001", cents=1000),))
PAST_POSTING = Alarm(kind=AlarmKind.PAST_POSTING, message="box 3: 5.00 added", rule="TABLE.md past-posting", box=3)


def test_deal_waits_for_a_dealer_and_every_input_after_names_him(tmp_path: Path) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        controller.report_zones([STAKE])
        refused = controller.press("DEAL", {}, role="dealer", source="display")
        assert refused["ok"] is False and refused["reason"] == "no_dealer"
        assert desk.badge(DEALER_BADGE) is not None  # the dealer's badge at the table's reader takes the table
        assert controller.core.shift.dealer == "D1"
        first_login = journal.last_seq
        FastTable(controller, seed=3).run(6)
        desk.take_table("D2", "pin")  # a push: D1 out, D2 in, one step
        FastTable(controller, seed=4).run(6)
        inputs = [entry for entry in journal.entries(kinds=("input",)) if entry.seq >= first_login]
        assert inputs and all(entry.body.get("employee") in ("D1", "D2") for entry in inputs)
        pushed = [entry.body for entry in inputs if entry.body["type"] in ("EmployeeLoggedOut", "EmployeeLoggedIn")]
        assert [(body["type"], body["employee"], body.get("reason", body.get("via"))) for body in pushed] == [
            ("EmployeeLoggedIn", "D1", "badge"), ("EmployeeLoggedOut", "D1", "push"), ("EmployeeLoggedIn", "D2", "pin")]
        before = [entry for entry in journal.entries(kinds=("input",)) if entry.seq < first_login]
        assert before and all("employee" not in entry.body for entry in before)
        # The fold gives the same dealer: a restart, and a checkpoint's state.
        again = staff_controller(journal)
        assert again.core.shift.dealer == "D2" and again.core.shift.required
        terms = again.terms
        restored = starting_core(terms, checkpoint_state(again.core))
        assert restored.shift.dealer == "D2" and restored.shift.required
        # Every row still reads back to its own bytes through the one codec.
        for entry in journal.entries():
            kind, body = entry.kind, dict(entry.body)
            assert row_from_json(entry.seq, kind, body).to_json() == body


def test_a_supervisors_action_names_him_and_the_shared_identity_is_refused(tmp_path: Path) -> None:
    registry = staff_registry(tmp_path)
    now = [100.0]
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry, now)
        desk.take_table("D1", "pin")
        FastTable(controller, seed=5).run(2)
        refused = controller.press("VOID", {}, role="supervisor", source="panel")  # the panel's VOID chord
        assert refused["reason"] == "needs_own_credential"
        assert desk.badge(SUPERVISOR_BADGE) is not None and controller.core.shift.dealer == "D1"  # no push
        badged = desk.supervisor_badge()
        assert badged is not None and badged.employee_id == "S1"
        assert desk.supervisor_badge() is None  # one badge, one action
        desk.badge(SUPERVISOR_BADGE)
        now[0] += 31.0
        assert desk.supervisor_badge() is None  # past badge_seconds
        alarm_id = controller.raise_alarm(PAST_POSTING)
        reply = controller.press("ACK_ALARM", {"id": alarm_id}, role="supervisor", source="display", employee="S1")
        assert reply["ok"] is True
        cleared = [entry.body for entry in journal.entries(kinds=("alarm_cleared",))]
        assert cleared[-1]["employee"] == "S1" and cleared[-1]["by"] == "supervisor"


def test_without_a_registry_nothing_changes(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal, staff=False)
        FastTable(controller, seed=3).run(3)
        assert controller.core.shift.dealer is None and "shift" not in controller.snapshot()
        assert all("employee" not in entry.body for entry in journal.entries())
        (terms,) = journal.entries(kinds=("terms",))
        assert "staff" not in terms.body



def test_recall_names_each_steps_author(tmp_path: Path) -> None:
    from table_runtime.runtime.recall import name_authors, recall_rounds
    from table_runtime.runtime.staff_desk import read_staff

    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        desk.take_table("D1", "pin")
        FastTable(controller, seed=6).run(2)
        desk.take_table("D2", "badge")
        FastTable(controller, seed=7).run(2)
        rounds = name_authors(recall_rounds(journal, last=4), read_staff(registry).name)
    authors = [(step["employee"], step["name"]) for round_ in rounds for step in round_["steps"]]
    assert set(authors) == {("D1", "Marie Dupont"), ("D2", "Luc Bon")}
    assert authors[0][0] == "D1" and authors[-1][0] == "D2"
