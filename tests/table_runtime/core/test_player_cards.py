"""A player card read at the table waits for the dealer's box (core/player_cards.py), on a real controller and
journal: placed by SEAT_CARD as a `PlayerSeated` of source "card", replaced by the next read, dropped when the next
round starts, and all of it the fold of the journal."""

from __future__ import annotations

import json
from pathlib import Path

from table_runtime.core.core_state import core_state
from table_runtime.core.inputs import core_input_from_dict, core_to_dict
from table_runtime.core.player_cards import PlayerCardRead
from table_runtime.core.record import replay
from table_runtime.core.seating import PlayerSeated
from table_runtime.core.table_core import TableCore
from table_runtime.game.codec import CodecError
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import encode_body
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds

from ..chip_table import ChipTable

ANNA, BRUNO = "p-0123456789ab", "p-ba9876543210"


def inputs_of(table: ChipTable) -> list[dict[str, object]]:
    return [entry.body for entry in table.journal.entries(kinds=("input",))]


def test_a_card_read_waits_then_the_tapped_box_seats_its_player_from_the_card(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")
    assert "card_waiting" not in table.controller.snapshot()
    table.controller.submit(PlayerCardRead(player=ANNA, reader="table"), source="card")
    assert table.controller.snapshot()["card_waiting"] == {"player": ANNA, "reader": "table"}
    assert table.controller.snapshot()["seats"] == {}  # nobody sits anywhere until the dealer says where
    reply = table.press("SEAT_CARD", box=4)
    assert reply["ok"], reply
    snapshot = table.controller.snapshot()
    assert snapshot["seats"] == {"4": ANNA} and "card_waiting" not in snapshot
    read, seated = inputs_of(table)[-2:]
    assert read == {"player": ANNA, "reader": "table", "type": "PlayerCardRead", "schema_version": 1,
                    "source": "card"}  # the row's source: where the input came from (the card reader)
    assert seated == {"box": 4, "player": ANNA, "seat_source": "card", "by": "dealer", "type": "PlayerSeated",
                      "schema_version": 1, "source": "panel"}
    # A restart on the same journal: the same seat, from the card, and no card waiting.
    again = TableController(table_id="T", rules=profile("fr-2020"), limits=TableLimits(), journal=table.journal,
                            clock=lambda: 2.0, zones=table.controller.zones)
    assert again.core.seats.players == {4: ANNA} and again.core.card_waiting is None


def test_the_next_read_replaces_the_card_waiting_and_a_restart_shows_the_same_prompt(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-casino")
    table.controller.submit(PlayerCardRead(player=ANNA), source="card")
    table.controller.submit(PlayerCardRead(player=BRUNO), source="card")
    assert table.controller.core.card_waiting == PlayerCardRead(player=BRUNO)
    folded = replay(TableCore(profile("fr-casino"), TableLimits()), table.journal.entries())
    assert folded.card_waiting == PlayerCardRead(player=BRUNO)
    assert table.press("SEAT_CARD", box=2)["ok"]
    assert table.controller.core.seats.players == {2: BRUNO}
    reply = table.press("SEAT_CARD", box=3)  # the card is placed: nothing waits any more
    assert (reply["ok"], reply["reason"]) == (False, RefusalReason.NO_CARD_READ)


def test_a_card_not_placed_by_the_next_deal_is_dropped_and_never_seats_anyone(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-casino")
    table.controller.submit(PlayerCardRead(player=ANNA), source="card")
    table.lock({"box1": 2})  # the round starts: the card nobody placed is dropped
    assert table.controller.core.card_waiting is None and table.controller.core.seats.players == {}
    assert "card_waiting" not in table.controller.snapshot()
    folded = replay(TableCore(profile("fr-casino"), TableLimits(), zones=table.controller.zones),
                    table.journal.entries())
    assert folded.card_waiting is None
    assert "card_waiting" not in json.dumps(core_state(table.controller.core))  # a checkpoint never holds it


def test_seat_card_names_a_box_of_the_table_and_the_pit_only_looks(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-casino")
    table.controller.submit(PlayerCardRead(player=ANNA), source="card")
    for args in ({"box": 8}, {"box": "2"}, {"box": True}, {}):
        reply = table.press("SEAT_CARD", **args)
        assert (reply["ok"], reply["reason"]) == (False, RefusalReason.BAD_SEAT), args
    assert table.press("SEAT_CARD", role="pit", box=1)["reason"] == RefusalReason.READ_ONLY
    assert table.controller.core.card_waiting == PlayerCardRead(player=ANNA)  # still waiting for its box
    assert table.press("SEAT", box=1, player="A")["ok"]  # the pit may still name a player on the display
    assert table.controller.core.seats.players == {1: "A"}
    assert table.controller.core.card_waiting == PlayerCardRead(player=ANNA)


def test_a_seat_from_the_display_journals_the_bytes_it_did_before_sources_and_old_rows_read_as_display() -> None:
    body = core_to_dict(PlayerSeated(box=3, player="A"))
    assert encode_body(body) == '{"box":3,"by":"dealer","player":"A","schema_version":1,"type":"PlayerSeated"}'
    assert core_input_from_dict(body) == PlayerSeated(box=3, player="A", source="display")
    by_card = core_to_dict(PlayerSeated(box=3, player=ANNA, source="card"))
    assert core_input_from_dict(by_card) == PlayerSeated(box=3, player=ANNA, source="card")
    for bad in ({**by_card, "seat_source": "rfid"}, {"type": "PlayerCardRead", "reader": "table"},
                {"type": "PlayerCardRead", "player": ""}):
        try:
            core_input_from_dict(bad)
        except CodecError as error:
            assert "PlayerSeated" in str(error) or "PlayerCardRead" in str(error)
        else:
            raise AssertionError(f"{bad} decoded")


def test_recall_of_a_round_where_a_card_was_read_and_placed_steps_through_the_round(tmp_path: Path) -> None:
    """Who sits where folds with the journal but is no step of a round: recall steps through the round around it
    (it refused such a journal before: an assertion on every seat input)."""
    table = ChipTable(tmp_path, "fr-casino")
    table.lock({"box1": 2})
    table.controller.submit(PlayerCardRead(player=ANNA), source="card")
    assert table.press("SEAT_CARD", box=1)["ok"]
    assert table.press("SEAT", box=2, player="B")["ok"]
    table.draw("TD 9C 6H")
    (recalled,) = recall_rounds(table.journal, last=1)
    assert [step["type"] for step in recalled["steps"]] == ["BetsLocked", "CardDrawn", "CardDrawn", "CardDrawn"]
