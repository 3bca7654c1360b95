"""A refused command carries its reason code (game/refusals.py): in its `command_refused` alarm, journaled, and in
the display's reply; docs/alarms.md and the feed's alarm schema list exactly the codes."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from pathlib import Path

from simulators.fast_table import FastTable
from table_runtime.core.record import replay
from table_runtime.core.table_core import TableCore
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm, Event
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Double, ShoeShuffled, Undo
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

REPO = Path(__file__).resolve().parents[2]
RULES, LIMITS = profile("fr-classic"), TableLimits()  # doubles on 9, 10, 11 only (house option double_on)


def controller_on(journal: Journal) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal,
                           clock=lambda: 1_700_000_000.0 + next(ticks))


def reasons(events: Sequence[Event]) -> list[str]:
    return [event.reason for event in events if isinstance(event, Alarm) and event.kind == AlarmKind.COMMAND_REFUSED]


def test_the_round_and_the_command_table_say_why_by_code(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        assert reasons(controller.submit(Undo(by="dealer"), source="panel")) == [RefusalReason.NO_ROUND]
        controller.submit(ShoeShuffled(shoe_id="S1"), source="shoe")
        for code in ("2C",) * RULES.burn_cards:
            controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
        controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),  # two boxes
                                           BoxBet(box=2, seated_cents=1000, owner="box2"))), source="chips")
        for code in ("5H", "TD", "9D", "2S", "8C"):  # box 1 has 5 + 2 = 7: no double under 9-10-11
            controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
        assert reasons(controller.submit(Double(), source="panel")) == [RefusalReason.DOUBLE_9_10_11]
        assert reasons(controller.submit(Undo(by="dealer"), source="panel")) == [RefusalReason.DEAL_ORDER_FIXED]
        reply = controller.press("VOID", {}, role="dealer", source="display")
        assert (reply["ok"], reply["reason"]) == (False, RefusalReason.NEEDS_SUPERVISOR)
        reply = controller.press("DOUBLE", {}, role="dealer", source="display")
        assert (reply["ok"], reply["reason"]) == (False, RefusalReason.DOUBLE_9_10_11)
        controller.press("FOLD", {}, role="dealer", source="panel", refusal_alarm=True)  # the panel has no screen
        rows = [entry.body for entry in journal.entries(kinds=("alarm", "alarm_updated"))]
        journaled = {body.get("reason") for body in rows}
        assert {RefusalReason.NO_ROUND, RefusalReason.DOUBLE_9_10_11, RefusalReason.DEAL_ORDER_FIXED,
                RefusalReason.UNKNOWN_COMMAND} <= journaled
        # The fold takes the code with the row: a restart shows the same open alarms.
        again = replay(TableCore(RULES, LIMITS), journal.entries())
        assert again.alarms.active == controller.alarms.active


def test_an_alarm_of_another_kind_has_no_reason(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        FastTable(controller_on(journal), seed=4, error_rate=0.3).run(10)
        for entry in journal.entries(kinds=("alarm",)):
            assert ("reason" in entry.body) == (entry.body["kind"] == AlarmKind.COMMAND_REFUSED), entry.body


def test_the_docs_and_the_feed_schema_list_every_code() -> None:
    text = (REPO / "docs" / "alarms.md").read_text(encoding="utf-8")
    section = text[text.index("### Why a command was refused"):text.index("## Shoe")]
    documented = set(re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE))
    assert documented == {reason.value for reason in RefusalReason}
    schema = json.loads((REPO / "docs" / "feed" / "schemas" / "alarm.json").read_text(encoding="utf-8"))
    assert set(schema["$defs"]["alarm"]["properties"]["reason"]["enum"]) == documented
