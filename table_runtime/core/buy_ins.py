"""Buy-ins: the dealer's exchange of cash (or a marker) for chips at the table, the table's drop.

To a casino's finance the **drop** is what went into the table's drop box: the cash and the markers
exchanged for chips at the table. It is not a stake: a buy-in is taken at any time, between rounds or
during one, and changes nothing in the round. The dealer records it on the display (the BUY_IN command);
the core journals it as an input (`BuyIn`, a row of kind `input` like every other) and makes one event of
it (`BuyInRecorded`, game/events.py), which the feed publishes and the floor adds to the table's drop
(casino_floor/money.py). The fold of the journal (core/record.py) takes the input back through the core,
so a replay makes the same event; the core keeps no state of it (the totals are the floor's, per shift).

What a buy-in may be is decided here, once (`buy_in_refusal`): a whole number of cents above 0 and at most
the table's `[limits] buy_in_max_cents`, paid in cash or by a marker, for a box of the table or none, and for a
rated player or none (anonymous, or the player of the box). A rated player is named only as the table knows him:
by his pseudonym (``p-`` and 12 hex digits, rating/pseudonym.py), or by the player card read waiting at the
table (``"card": true``, core/player_cards.py), never by free text: a card number typed or sent as the player
(``6011987654321012`` was journaled, published and stored at the floor, issue 30) is refused, and the refusal
does not repeat it. A journal written before keeps its free-text ids: its rows replay as they were journaled
(`buy_in_from_dict`). Pure.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from table_runtime.game.codec import CodecError
from table_runtime.game.events import BuyInRecorded
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.player_ids import is_pseudonym
from table_runtime.game.refusals import RefusalReason

BUY_IN_TYPE: Final = "BuyIn"
PLAYER_MAX: Final = 64  # characters of a journaled player's id (rows written before pseudonyms held free text)
CARD_KEY: Final = "card"  # BUY_IN {"card": true}: for the player whose card was read and waits for his box


class Tender(enum.StrEnum):
    """What the player gave for the chips: cash, or a marker (a signed credit instrument of the casino)."""

    CASH = "cash"
    MARKER = "marker"


@dataclass(frozen=True, slots=True, kw_only=True)
class BuyIn:
    """The dealer exchanged chips for `cents` of `tender` (for `box`, or a player standing; `player`: a rated
    player's pseudonym, else empty); `by`: who recorded it (dealer or supervisor)."""

    cents: int
    tender: str = Tender.CASH
    box: int | None = None
    player: str = ""
    by: str = "dealer"


@dataclass(frozen=True, slots=True)
class BuyInRefusal:
    """Why a buy-in is not taken: the words after "BUY_IN refused: " and the code."""

    text: str
    reason: RefusalReason


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _money_refusal(args: Mapping[str, Any], *, max_cents: int, boxes: int) -> BuyInRefusal | None:
    """What is wrong with a buy-in's amount, tender or box, or None."""
    raw = args.get("cents")
    cents = _whole(raw)
    if cents is None:
        return BuyInRefusal(f"the amount must be a whole number of cents, not {raw!r}", RefusalReason.BAD_AMOUNT)
    if cents <= 0:
        return BuyInRefusal(f"the amount must be more than 0 cents, not {cents}", RefusalReason.BAD_AMOUNT)
    if cents > max_cents:
        return BuyInRefusal(f"{cents} cents is over the buy-in maximum of {max_cents} cents",
                            RefusalReason.OVER_BUY_IN_MAXIMUM)
    tender = args.get("tender", Tender.CASH)
    if tender not in tuple(Tender):
        return BuyInRefusal(f"paid with {tender!r}: cash or marker only", RefusalReason.BAD_BUY_IN)
    box = args.get("box")
    if box is not None and (_whole(box) is None or not 1 <= box <= boxes):
        return BuyInRefusal(f"box {box!r} is not a box of this table (1 to {boxes})", RefusalReason.BAD_BUY_IN)
    return None


def buy_in_refusal(args: Mapping[str, Any], *, max_cents: int, boxes: int,
                   card_waiting: str | None = None) -> BuyInRefusal | None:
    """What is wrong with a BUY_IN's arguments (``cents``, ``tender``, ``box``, and ``player``, a pseudonym, or
    ``card``: true, the card read waiting, whose pseudonym is `card_waiting`), or None."""
    problem = _money_refusal(args, max_cents=max_cents, boxes=boxes)
    if problem is not None:
        return problem
    player, card = args.get("player", ""), args.get(CARD_KEY, False)
    if not isinstance(card, bool):
        return BuyInRefusal(f"{CARD_KEY} is true (for the card read waiting) or false", RefusalReason.BAD_BUY_IN)
    if card and player:
        return BuyInRefusal("a player by his pseudonym or by the card read waiting, not both",
                            RefusalReason.BAD_BUY_IN)
    if card and card_waiting is None:
        return BuyInRefusal("no player card waits: the player swipes his card", RefusalReason.NO_CARD_READ)
    if player and not (isinstance(player, str) and is_pseudonym(player)):
        # Never repeated: it may be the card number itself.
        return BuyInRefusal("a player is named by his card read (a pseudonym p- and 12 hex digits), never by a "
                            "card number or other text", RefusalReason.PLAYER_NOT_PSEUDONYM)
    return None


def buy_in_of(args: Mapping[str, Any], *, by: str, card_waiting: str | None = None) -> BuyIn:
    """The input of arguments `buy_in_refusal` found nothing wrong with."""
    box = args.get("box")
    player = card_waiting if args.get(CARD_KEY) is True and card_waiting is not None else args.get("player", "")
    return BuyIn(cents=int(args["cents"]), tender=Tender(args.get("tender", Tender.CASH)),
                 box=None if box is None else int(box), player=str(player), by=by)


def recorded(item: BuyIn) -> BuyInRecorded:
    """The event of a buy-in taken (what the feed publishes and the floor adds to the drop)."""
    return BuyInRecorded(cents=item.cents, tender=str(item.tender), box=item.box, player=item.player, by=item.by)


def buy_in_text(item: BuyIn) -> str:
    """One line for the dealer and for recall: "buy-in 500.00 € cash (box 3)"."""
    where = "" if item.box is None else f" (box {item.box})"
    return f"buy-in {item.cents / 100:.2f} € {item.tender}{where}"


def buy_in_to_dict(item: BuyIn) -> dict[str, Any]:
    """The journal body of a buy-in (docs/journal.md); the box and the player only when given."""
    body: dict[str, Any] = {"cents": item.cents, "tender": str(item.tender), "by": item.by}
    if item.box is not None:
        body["box"] = item.box
    if item.player:
        body["player"] = item.player
    return {**body, "type": BUY_IN_TYPE, "schema_version": SCHEMA_VERSION}


def buy_in_from_dict(body: Mapping[str, Any]) -> BuyIn:
    """The buy-in a journal row holds; a `CodecError` naming what is wrong (a journal is never half read). Its
    player is taken as journaled: a journal of before the pseudonyms holds free-text ids, and replays."""
    problem = _money_refusal(body, max_cents=_whole(body.get("cents")) or 1, boxes=7)  # the max of its day
    player = body.get("player", "")
    if problem is None and (not isinstance(player, str) or len(player) > PLAYER_MAX):
        problem = BuyInRefusal(f"the player's id must be text of at most {PLAYER_MAX} characters",
                               RefusalReason.BAD_BUY_IN)
    if problem is not None:
        raise CodecError(f"bad BuyIn input: {problem.text}")
    return BuyIn(cents=int(body["cents"]), tender=Tender(body.get("tender", Tender.CASH)),
                 box=None if body.get("box") is None else int(body["box"]), player=player,
                 by=str(body.get("by", "dealer")))
