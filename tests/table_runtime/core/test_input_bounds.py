"""The bounds of the table's own inputs (core/input_bounds.py): whatever a client sends as a command's arguments,
the table decides without an exception and journals nothing the floor's PostgreSQL cannot store (issue 30: a
buy-in's player holding U+0000 was journaled and published, and stopped the floor).

A real controller and journal for the refusals; hypothesis for the claim over every command and any JSON."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_runtime.config import zone_names
from table_runtime.core.commands import Submit, decide
from table_runtime.core.input_bounds import BIGINT_MAX, BIGINT_MIN, TEXT_MAX, args_problem
from table_runtime.core.inputs import core_to_dict
from table_runtime.core.table_core import TableCore
from table_runtime.game.commands import Command
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

RULES = profile("fr-2020")
LIMITS = TableLimits(buy_in_max_cents=2**70)  # a house maximum past 64 bits: the bound still holds


def _controller(journal: Journal) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal,
                           clock=lambda: 1_800_000_000.0 + next(ticks))


@pytest.mark.parametrize(("name", "args", "words"), [
    ("BUY_IN", {"cents": 500, "player": "p-0123456789ab\x00"}, "args.player holds the character U+0000"),
    ("BUY_IN", {"cents": 2**63}, f"args.cents is past the floor's 64-bit numbers (at most {BIGINT_MAX})"),
    ("SEAT", {"box": 1, "player": "A" * (TEXT_MAX + 1)}, f"args.player is {TEXT_MAX + 1} characters long, at most "
                                                        f"{TEXT_MAX}"),
    ("SEAT", {"box": -(2**64), "player": "A"}, f"args.box is past the floor's 64-bit numbers (at most {BIGINT_MAX})"),
    ("HYPER_ASSIGN", {"case": "21", "box": 1, "cents": 10**30},
     f"args.cents is past the floor's 64-bit numbers (at most {BIGINT_MAX})"),
    ("MANUAL_CARD", {"card": "QS", "note": {"deep": ["\x00"]}}, "args.note.deep[0] holds the character U+0000"),
    ("NEXT", {"\x00": 1}, "a key of args holds the character U+0000"),
    ("BUY_IN", {"cents": math.nan}, "args.cents is not a finite number"),
    ("BUY_IN", {"cents": math.inf}, "args.cents is not a finite number"),
])  # fmt: skip
def test_a_command_past_the_bounds_is_refused_naming_the_argument_and_journals_nothing(
        tmp_path: Path, name: str, args: dict[str, Any], words: str) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = _controller(journal)
        before = journal.last_seq
        reply = controller.press(name, args, role="dealer", source="display")
        assert reply == {"ok": False, "message": f"{name} refused: {words}",
                         "reason": RefusalReason.INPUT_OUT_OF_BOUNDS}
        assert journal.last_seq == before


def test_the_bounds_themselves_pass() -> None:
    assert args_problem({"player": "x" * TEXT_MAX, "cents": BIGINT_MAX, "box": BIGINT_MIN, "f": 1.5,
                         "list": [True, None, {"k": "v"}]}) is None


ARG_NAMES = ("box", "player", "cents", "case", "behind", "card", "id", "reason", "tender", "from_box", "to_box")
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=300) | st.sampled_from(["21", "bust", "p-0123456789ab", "A", "cash", "QS", "6011987654321012"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=6)
ARGS = st.dictionaries(st.sampled_from(ARG_NAMES) | st.text(max_size=3), JSON, max_size=5)


def _storable(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" not in value and len(value) <= TEXT_MAX
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return BIGINT_MIN <= value <= BIGINT_MAX
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_storable(key) and _storable(item) for key, item in value.items())
    return isinstance(value, list | tuple) and all(_storable(item) for item in value)


@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(sorted(Command)), args=ARGS, role=st.sampled_from(["dealer", "supervisor"]))
def test_any_arguments_are_decided_without_an_error_and_journal_only_what_the_floor_stores(
        name: str, args: dict[str, Any], role: str) -> None:
    core = TableCore(RULES, LIMITS, zones=zone_names(7, hyper=True))
    decision = decide(core, name, args, role=role, source="display")
    if isinstance(decision, Submit):
        for item, _source in decision.inputs:
            body = core_to_dict(item)
            assert _storable(body), body
            assert "6011987654321012" not in str(body)  # a card number is never a player
