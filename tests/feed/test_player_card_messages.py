"""The feed's messages of a player card read and of the seat it becomes validate against docs/feed/schemas, and a
message carrying something else than a pseudonym as the player does not."""

from __future__ import annotations

import json

from table_runtime.core.inputs import core_to_dict
from table_runtime.core.player_cards import PlayerCardRead
from table_runtime.core.seating import PlayerSeated
from table_runtime.feed.messages import Topics, messages_for_entry
from table_runtime.journal import GENESIS_HASH, JournalEntry

from .support import JOURNAL, validators_by_topic


def published(seq: int, body: dict[str, object]) -> object:
    (message,) = messages_for_entry(Topics("casino", "T1"), JournalEntry(seq, 1764412345.25, "input", body,
                                                                          GENESIS_HASH, f"{seq:064x}"), JOURNAL)
    return json.loads(message.encode())


def test_a_card_read_and_its_seat_are_valid_messages_and_a_card_number_is_not() -> None:
    validator = validators_by_topic()["events"]
    read = {**core_to_dict(PlayerCardRead(player="p-0123456789ab")), "source": "card"}
    validator.validate(published(1, read))
    seated = {**core_to_dict(PlayerSeated(box=2, player="p-0123456789ab", source="card")), "source": "display"}
    validator.validate(published(2, seated))
    assert seated["seat_source"] == "card"
    assert not validator.is_valid(published(3, {**read, "player": "6012345678901234"}))
    assert not validator.is_valid(published(4, {**seated, "seat_source": "display"}))  # the default is left out
