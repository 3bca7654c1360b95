"""A player card read at the table, and the box the dealer places it on (issue 23, "Who sits where").

A rated player is identified by his card, read at the table's card reader (drivers/player_card.py). The runtime
turns the card's number into the player's pseudonym first (table_runtime/rating/pseudonym.py): nothing here, and
nothing journaled, holds a card number.

- A read at the table's reader is the input `PlayerCardRead` (player: the pseudonym, reader: which reader). The
  core holds it as the **card waiting** (`pending`): the display says "card read: tap the player's box".
- The dealer taps a box: the command SEAT_CARD {box} becomes `PlayerSeated(box, player, by, source="card")`
  (core/seating.py), which takes the card waiting.
- A card waiting is **replaced by the next read** (the last card read is the one placed), and **dropped when the
  next round starts** (the bets locked): a card nobody placed by then was not for this table's next round, and the
  prompt does not stay up through it. It is never placed by itself.
- A reader configured for one box (`[player_cards.boxes]`) seats its player at once: the runtime submits
  `PlayerSeated(box, player, by=<reader>, source="card")` and no card waits.

The card waiting is the fold of the journal like everything else (a restart shows the same prompt); a checkpoint
does not hold it, as a checkpoint is taken just before a round starts, which drops it. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from table_runtime.core.seating import CARD_SOURCE, PlayerSeated
from table_runtime.game.codec import CodecError
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.refusals import Refusal, RefusalReason

PLAYER_CARD_READ_TYPE: Final = "PlayerCardRead"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerCardRead:
    """A player's card was read at the table's reader `reader`: `player` is his pseudonym, never the number."""

    player: str
    reader: str = "table"


def card_read_to_dict(item: PlayerCardRead) -> dict[str, Any]:
    """The journal body of a card read."""
    return {"player": item.player, "reader": item.reader, "type": PLAYER_CARD_READ_TYPE,
            "schema_version": SCHEMA_VERSION}


def card_read_from_dict(body: Mapping[str, Any]) -> PlayerCardRead:
    """The card read a journal row holds; a `CodecError` naming what is wrong otherwise."""
    try:
        player, reader = body["player"], body.get("reader", "table")
    except KeyError as error:
        raise CodecError(f"bad {PLAYER_CARD_READ_TYPE} input: no {error}") from error
    if not isinstance(player, str) or not player or not isinstance(reader, str):
        raise CodecError(f"bad {PLAYER_CARD_READ_TYPE} input: player {player!r}, reader {reader!r}")
    return PlayerCardRead(player=player, reader=reader)


def waiting_after(pending: PlayerCardRead | None, item: PlayerCardRead | PlayerSeated) -> PlayerCardRead | None:
    """The card waiting after `item`: a read replaces it; the card placed on a box takes it."""
    if isinstance(item, PlayerCardRead):
        return item
    if pending is not None and item.source == CARD_SOURCE and item.player == pending.player:
        return None
    return pending


def seat_card_input(pending: PlayerCardRead | None, args: Mapping[str, Any], *, by: str,
                    boxes: int) -> PlayerSeated | Refusal:
    """What SEAT_CARD {box} means: the card waiting placed on a box of the table, or why it is refused."""
    if pending is None:
        return Refusal(RefusalReason.NO_CARD_READ, "no player card waits to be placed: the player swipes his card")
    box = args.get("box")
    if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= boxes:
        return Refusal(RefusalReason.BAD_SEAT, f"box {box!r} is not a box of the table (1 to {boxes})")
    return PlayerSeated(box=box, player=pending.player, by=by, source=CARD_SOURCE)


def waiting_view(pending: PlayerCardRead | None) -> dict[str, Any]:
    """What the snapshot adds for the display's prompt: the card waiting (none: nothing)."""
    return {} if pending is None else {"card_waiting": {"player": pending.player, "reader": pending.reader}}
