"""A seated player's pause and move and a player behind a box (core/seat_changes.py): journaled inputs pressed on a
real controller, refused with a reason when they name no seated player or no free box, and the fold of the journal
and of a checkpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from table_runtime.core.core_state import core_state, restore
from table_runtime.core.inputs import core_input_from_dict, core_to_dict
from table_runtime.core.record import replay
from table_runtime.core.seat_changes import BehindJoined, PlayerMoved, PlayerPaused
from table_runtime.core.table_core import TableCore
from table_runtime.game.inputs import Next
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import TableLimits, profile
from table_runtime.runtime.recall import recall_rounds

from ..chip_table import ChipTable
from ..rating.rated_table import RatedTable


def test_a_pause_a_move_and_a_player_behind_are_journaled_and_shown(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")
    assert table.press("SEAT", box=2, player="A")["ok"]
    assert table.press("PAUSE", box=2)["message"] == "PAUSE box2"
    assert table.press("MOVE", from_box=2, to_box=5)["message"] == "MOVE box2 -> box5"
    assert table.press("BEHIND", box=5, player="B")["ok"]
    snapshot = table.controller.snapshot()
    assert snapshot["seats"] == {"5": "A"}  # the player moved, his pause with him
    assert (snapshot["seats_paused"], snapshot["behind_players"]) == ([5], {"5": "B"})
    assert table.press("RESUME", box=5)["ok"] and table.press("BEHIND_CLEAR", box=5)["ok"]
    snapshot = table.controller.snapshot()
    assert "seats_paused" not in snapshot and "behind_players" not in snapshot
    inputs = [entry.body for entry in table.journal.entries() if entry.kind == "input"]
    assert [(body["type"], body.get("box", body.get("from_box")), body["by"]) for body in inputs] == [
        ("PlayerSeated", 2, "dealer"), ("PlayerPaused", 2, "dealer"), ("PlayerMoved", 2, "dealer"),
        ("BehindJoined", 5, "dealer"), ("PlayerResumed", 5, "dealer"), ("BehindLeft", 5, "dealer")]
    assert inputs[2]["to_box"] == 5 and inputs[3]["player"] == "B"


def test_a_seat_change_names_a_seated_player_and_a_free_box(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")
    table.press("SEAT", box=1, player="A")
    table.press("SEAT", box=3, player="C")
    refused: list[tuple[str, dict[str, Any], str]] = [("PAUSE", {"box": 2}, "no player is seated on box 2"),
               ("RESUME", {"box": 1}, "not paused"),
               ("MOVE", {"from_box": 1, "to_box": 3}, "box 3 is not free"),
               ("MOVE", {"from_box": 1, "to_box": 8}, "not a box of the table"),
               ("MOVE", {"from_box": 4, "to_box": 5}, "no player is seated on box 4"),
               ("BEHIND", {"box": 1, "player": " "}, "printable characters"),
               ("BEHIND_CLEAR", {"box": 1}, "no player is behind box 1")]
    for name, args, words in refused:
        reply = table.press(name, **args)
        assert (reply["ok"], reply["reason"]) == (False, RefusalReason.BAD_SEAT), (name, args)
        assert words in reply["message"], reply["message"]
    assert table.press("PAUSE", box=1)["ok"]
    assert table.press("PAUSE", box=1)["reason"] == RefusalReason.BAD_SEAT  # already paused
    assert table.press("MOVE", role="pit", from_box=1, to_box=2)["reason"] == RefusalReason.READ_ONLY
    assert [entry.body["type"] for entry in table.journal.entries() if entry.kind == "input"] == [
        "PlayerSeated", "PlayerSeated", "PlayerPaused"]  # nothing refused was journaled


def test_the_seat_changes_are_the_fold_of_the_journal_and_of_a_checkpoint(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")
    table.press("SEAT", box=2, player="A")
    table.press("PAUSE", box=2)
    table.press("MOVE", from_box=2, to_box=6)
    table.press("BEHIND", box=6, player="B")
    table.press("SEAT", box=4, player="D")
    table.press("PAUSE", box=4)
    table.press("SEAT", box=4, player="E")  # another player on a paused box: he is not paused
    core = table.controller.core
    assert core.seats.players == {6: "A", 4: "E"} and core.seat_changes.paused == {6}
    again = replay(TableCore(profile("fr-2020"), TableLimits()), table.journal.entries())
    assert (again.seats, again.seat_changes) == (core.seats, core.seat_changes)
    state = json.loads(json.dumps(core_state(core)))
    assert state["seat_changes"] == {"paused": [6], "behind": {"6": "B"}}
    restored = restore(profile("fr-2020"), None, state)
    assert (restored.seats, restored.seat_changes) == (core.seats, core.seat_changes)
    assert "seat_changes" not in core_state(TableCore(profile("fr-2020")))  # a checkpoint reads as before


def test_a_journal_row_of_each_seat_change_reads_back_as_written() -> None:
    for item in (PlayerPaused(box=3, by="supervisor"), PlayerMoved(from_box=1, to_box=7),
                 BehindJoined(box=2, player="Zoé")):
        assert core_input_from_dict(core_to_dict(item)) == item


def test_recall_replays_a_round_with_seat_inputs_around_it(tmp_path: Path) -> None:
    """Who sits where, a pause, a move and a player behind are not steps of a round: recall steps over them (it
    used to stop at its check that every input is a game input or a buy-in)."""
    table = RatedTable(tmp_path)
    try:
        table.press("SEAT", box=1, player="A")
        table.press("BEHIND", box=1, player="B")
        table.lock({1: 1000})
        table.press("PAUSE", box=1)
        table.draw("TH 6S 9D")
        table.press("MOVE", from_box=1, to_box=4)
        table.submit(Next())
        table.draw("TC 8C")
        table.confirm()
        table.press("SEAT_CLEAR", box=4)
        (recalled,) = recall_rounds(table.journal, last=1)
        steps = [step["type"] for step in recalled["steps"]]
        assert steps == ["BetsLocked", "CardDrawn", "CardDrawn", "CardDrawn", "Next", "CardDrawn", "CardDrawn",
                         "Confirm"]
    finally:
        table.close()
