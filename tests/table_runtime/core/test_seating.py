"""Who sits where and the director's options of the amended text (55-4 as amended on 6 May 2020), checked at DEAL
on a real controller and journal."""

from __future__ import annotations

import json
from pathlib import Path

from table_runtime.core.core_state import core_state, restore
from table_runtime.core.record import replay
from table_runtime.core.table_core import TableCore
from table_runtime.game.inputs import ShoeShuffled
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import TableLimits, profile

from ..chip_table import SETTLE_SCANS, ChipTable


def _ready(table: ChipTable, chips: dict[str, int]) -> None:
    """A shuffled shoe, its burns, and `chips` on the zones, read; no DEAL yet."""
    table.controller.submit(ShoeShuffled(shoe_id="S1"))
    table.draw("9C 9D 9H 9S 8C")
    for zone, count in chips.items():
        table.put(zone, count)
    table.scan(SETTLE_SCANS)


def test_a_behind_bet_while_a_seat_is_vacant_refuses_deal_until_the_seats_are_taken(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")
    _ready(table, {"box1": 2, "box1.behind": 1})
    reply = table.press("DEAL")
    assert (reply["ok"], reply["reason"]) == (False, RefusalReason.BEHIND_WHILE_SEAT_VACANT)
    (alarm,) = [a for a in table.alarms() if a["kind"] == "behind_while_seat_vacant"]
    assert alarm["box"] == 1 and alarm["amounts"] == {"seen_cents": 500, "vacant_seats": 6}
    assert "interdire de jouer debout" in alarm["rule"] and "box2, box3" in alarm["message"]
    assert table.controller.table.phase == "betting" and not table.controller.table.round_in_play
    for box in range(2, 8):  # players sit down on every free box: none is vacant any more
        assert table.press("SEAT", box=box, player=f"P{box}")["ok"]
    assert table.press("DEAL")["message"] == "bets locked"
    assert table.controller.snapshot()["seats"] == {str(box): f"P{box}" for box in range(2, 8)}


def test_a_player_on_more_boxes_than_the_director_allows_refuses_deal(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")  # at most 2 boxes a player
    _ready(table, {"box1": 1, "box2": 1, "box3": 1})
    for box in (1, 2, 3):
        assert table.press("SEAT", box=box, player="A")["ok"]
    reply = table.press("DEAL")
    assert (reply["ok"], reply["reason"]) == (False, RefusalReason.TOO_MANY_BOXES)
    (alarm,) = [a for a in table.alarms() if a["kind"] == "too_many_boxes"]
    assert (alarm["box"], alarm["amounts"]) == (3, {"boxes": 3, "max_boxes": 2})
    # The same bets are one player's only by the seats: box 3 cleared is an anonymous player of its own.
    assert table.press("SEAT_CLEAR", box=3)["ok"]
    assert table.press("DEAL")["message"] == "bets locked"


def test_the_options_off_leave_the_deal_alone(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-casino")
    _ready(table, {"box1": 1, "box1.behind": 1, "box2": 1, "box3": 1})
    for box in (1, 2, 3):
        table.press("SEAT", box=box, player="A")
    assert table.press("DEAL")["message"] == "bets locked"


def test_a_seat_names_a_box_of_the_table_and_a_player_and_the_pit_only_looks(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")
    for args in ({"box": 8, "player": "A"}, {"box": "1", "player": "A"}, {"box": 1, "player": " "},
                 {"box": 1, "player": "X" * 17}, {"box": 1}):
        reply = table.press("SEAT", **args)
        assert (reply["ok"], reply["reason"]) == (False, RefusalReason.BAD_SEAT), args
    assert table.press("SEAT", role="pit", box=1, player="A")["reason"] == RefusalReason.READ_ONLY
    assert table.controller.snapshot()["seats"] == {}


def test_a_card_number_is_never_a_label(tmp_path: Path) -> None:
    """A player card is read, never typed: a label with a card's number (more digits than a label needs) is
    refused for SEAT and BEHIND alike, and the refusal does not repeat it."""
    table = ChipTable(tmp_path, "fr-2020")
    for name, number in (("SEAT", "6011987654321012"), ("BEHIND", "6011 9876 5432")):
        reply = table.press(name, box=1, player=number)
        assert (reply["ok"], reply["reason"]) == (False, RefusalReason.BAD_SEAT) and number not in reply["message"]
        assert "a card number is never typed" in reply["message"]
    assert table.press("SEAT", box=1, player="12")["ok"]  # a short number is a label
    assert table.controller.snapshot()["seats"] == {"1": "12"}


def test_who_sits_where_is_the_fold_of_the_journal_and_of_a_checkpoint(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")
    table.press("SEAT", box=2, player="A")
    table.press("SEAT", box=5, player="B")
    table.press("SEAT", box=2, player="C")  # another player takes box 2
    table.press("SEAT_CLEAR", box=5)
    assert table.controller.core.seats.players == {2: "C"}
    again = replay(TableCore(profile("fr-2020"), TableLimits()), table.journal.entries())
    assert again.seats == table.controller.core.seats
    state = json.loads(json.dumps(core_state(table.controller.core)))
    assert state["seats"] == {"2": "C"}
    assert restore(profile("fr-2020"), None, state).seats == table.controller.core.seats
    assert "seats" not in core_state(TableCore(profile("fr-2020")))  # a checkpoint reads as before when nobody sits


def test_one_label_on_every_vacant_seat_does_not_fill_them(tmp_path: Path) -> None:
    """Issue 30: the same player named on every free box made none of them vacant. One player sits at one seat."""
    table = ChipTable(tmp_path, "fr-2020")
    _ready(table, {"box1": 2, "box1.behind": 1})
    for box in range(2, 8):
        assert table.press("SEAT", box=box, player="X")["ok"]
    reply = table.press("DEAL")
    assert (reply["ok"], reply["reason"]) == (False, RefusalReason.BEHIND_WHILE_SEAT_VACANT)
    (alarm,) = [a for a in table.alarms() if a["kind"] == "behind_while_seat_vacant"]
    assert alarm["amounts"] == {"seen_cents": 500, "vacant_seats": 5} and "box3, box4" in alarm["message"]
    assert "box2" not in alarm["message"]  # X sits at box 2


def test_labels_differing_only_in_case_are_one_player(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")  # at most 2 boxes a player
    _ready(table, {"box1": 1, "box2": 1, "box3": 1})
    for box, label in ((1, "A"), (2, "a"), (3, "A")):
        assert table.press("SEAT", box=box, player=label)["ok"]
    reply = table.press("DEAL")
    assert (reply["ok"], reply["reason"]) == (False, RefusalReason.TOO_MANY_BOXES)
    (alarm,) = [a for a in table.alarms() if a["kind"] == "too_many_boxes"]
    assert (alarm["box"], alarm["amounts"]) == (3, {"boxes": 3, "max_boxes": 2})
    assert "box1, box2, box3" in alarm["message"]


def test_a_seat_on_a_third_box_after_deal_is_refused(tmp_path: Path) -> None:
    """Issue 30: the director's limit was checked at DEAL only, so a SEAT right after it put a player on three
    boxes of the round. The round's stakes are fixed: the SEAT is refused, a box he does not bet on is not."""
    table = ChipTable(tmp_path, "fr-2020")  # at most 2 boxes a player
    _ready(table, {"box1": 1, "box2": 1, "box3": 1})
    for box in (1, 2):
        assert table.press("SEAT", box=box, player="A")["ok"]
    assert table.press("DEAL")["message"] == "bets locked"
    before = table.controller.journal.last_seq
    reply = table.press("SEAT", box=3, player="a")
    assert (reply["ok"], reply["reason"]) == (False, RefusalReason.TOO_MANY_BOXES)
    assert reply["message"] == "player a would bet on 3 boxes of this round (box1, box2, box3); at most 2 per player"
    assert table.controller.journal.last_seq == before and "3" not in table.controller.snapshot()["seats"]
    assert table.press("SEAT", box=5, player="A")["ok"]  # no stake there: he may sit where he likes
    assert table.press("SEAT", box=3, player="B")["ok"]  # another player
