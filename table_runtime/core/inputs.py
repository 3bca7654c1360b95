"""The table's inputs beyond the game's: a zone's stable chips, as the readers and the registry judged them.

A `ZoneChanged` is journaled like every input (docs/journal.md): the chip watcher's state
after a restart is a replay of these rows, never a guess from what the readers see then.
The debounce and the registry check happen before, at the edge (chips/edge.py), like the
decoding of a frame: the core receives the judged contents and decides every alarm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from table_runtime.core.buy_ins import BUY_IN_TYPE, BuyIn, buy_in_from_dict, buy_in_to_dict
from table_runtime.core.player_cards import (
    PLAYER_CARD_READ_TYPE,
    PlayerCardRead,
    card_read_from_dict,
    card_read_to_dict,
)
from table_runtime.core.seat_changes import (
    SEAT_CHANGE_CLASSES,
    SEAT_CHANGE_TYPES,
    SeatChange,
    seat_change_from_dict,
    seat_change_to_dict,
)
from table_runtime.core.seating import (
    SEAT_INPUT_TYPES,
    PlayerSeated,
    SeatCleared,
    SeatInput,
    seat_from_dict,
    seat_to_dict,
)
from table_runtime.core.shift import SHIFT_INPUT_CLASSES, SHIFT_INPUT_TYPES, ShiftInput, shift_from_dict, shift_to_dict
from table_runtime.game.codec import CodecError, input_from_dict, to_dict
from table_runtime.game.inputs import SCHEMA_VERSION, Input


@dataclass(frozen=True, slots=True, kw_only=True)
class ZoneChip:
    """One chip on a zone: what it counts for (the registry's denomination, 0 when refused) and, for a chip the
    registry refuses, why (a `ChipProblemKind`), with the registry's and the tag's denominations."""

    uid: str
    cents: int
    refused: str = ""
    detail: str = ""
    registry_cents: int | None = None
    tag_cents: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ZoneChanged:
    """The stable contents of one zone changed (or were read for the first time since the start), by UID.

    Refused chips past the first REFUSED_LISTED of a zone (thousands of junk tags) are not listed but
    counted by kind in `unlisted`: they count for nothing, and a scan of them stays a small row.
    """

    zone: str
    chips: tuple[ZoneChip, ...]
    unlisted: tuple[tuple[str, int], ...] = ()  # (refused kind, how many), for refused chips not in `chips`

    @property
    def total_cents(self) -> int:
        return sum(chip.cents for chip in self.chips)


@dataclass(frozen=True, slots=True, kw_only=True)
class HyperAssigned:
    """The dealer says whose the chips on a hyper black jack case are (55-4 6°; core/hyper_field.py): `cents` of
    the case `case` are the stake of box `box`'s seated player, or of the player behind it (`behind`). 0 takes
    the assignment back. Journaled like every input: the field's owners after a restart are a replay."""

    case: str
    box: int
    cents: int
    behind: bool = False
    by: str = "dealer"


REFUSED_LISTED = 32  # refused chips a ZoneChanged lists at most (the others are counted by kind)
# The chips' own inputs, folded but not a round's steps (recall): a zone's chips, and whose the chips on a hyper
# black jack case are.
CoreInput = Input | ZoneChanged | HyperAssigned | SeatInput | BuyIn | PlayerCardRead | SeatChange | ShiftInput  # who
# sits where (core/seating.py); PlayerCardRead: a card read at the table, waiting for its box (core/player_cards.py);
# SeatChange: a pause, a move, a player behind (core/seat_changes.py); ShiftInput: a dealer's login or logout
# (core/shift.py)
CHIP_INPUT_TYPES = frozenset({"ZoneChanged", "HyperAssigned"})
SEAT_INPUT_CLASSES: Final = (PlayerSeated, SeatCleared)


def core_input_from_dict(body: dict[str, Any]) -> CoreInput:
    """The input a journal row holds (a game input, a zone change, a hyper assignment or a buy-in); a `CodecError`
    naming what is wrong."""
    if body.get("type") == BUY_IN_TYPE:
        return buy_in_from_dict(body)
    if body.get("type") == "HyperAssigned":
        try:
            return HyperAssigned(case=str(body["case"]), box=int(body["box"]), cents=int(body["cents"]),
                                 behind=bool(body.get("behind", False)), by=str(body.get("by", "dealer")))
        except (KeyError, TypeError, ValueError) as error:
            raise CodecError(f"bad HyperAssigned input: {error}") from error
    if body.get("type") in SEAT_INPUT_TYPES:
        return seat_from_dict(body)
    if body.get("type") == PLAYER_CARD_READ_TYPE:
        return card_read_from_dict(body)
    if body.get("type") in SEAT_CHANGE_TYPES:
        return seat_change_from_dict(body)
    if body.get("type") in SHIFT_INPUT_TYPES:
        return shift_from_dict(body)
    if body.get("type") != "ZoneChanged":
        return input_from_dict(body)
    try:
        return ZoneChanged(zone=str(body["zone"]), chips=tuple(
            ZoneChip(uid=str(chip["uid"]), cents=int(chip["cents"]), refused=str(chip.get("refused", "")),
                     detail=str(chip.get("detail", "")), registry_cents=chip.get("registry_cents"),
                     tag_cents=chip.get("tag_cents"))
            for chip in body["chips"]),
            unlisted=tuple((str(kind), int(count)) for kind, count in body.get("unlisted", {}).items()))
    except (KeyError, TypeError, ValueError) as error:
        raise CodecError(f"bad ZoneChanged input: {error}") from error


def core_to_dict(item: CoreInput) -> dict[str, Any]:
    """The journal body of an input (a game input, a zone change, a hyper assignment or a buy-in)."""
    if isinstance(item, BuyIn):
        return buy_in_to_dict(item)
    if isinstance(item, HyperAssigned):
        return {"case": item.case, "box": item.box, "cents": item.cents, "behind": item.behind, "by": item.by,
                "type": "HyperAssigned", "schema_version": SCHEMA_VERSION}
    if isinstance(item, ZoneChanged):
        return {"zone": item.zone, "chips": [
            {"uid": chip.uid, "cents": chip.cents, **({"refused": chip.refused, "detail": chip.detail,
                                                      "registry_cents": chip.registry_cents,
                                                      "tag_cents": chip.tag_cents} if chip.refused else {})}
            for chip in item.chips], "type": "ZoneChanged", "schema_version": SCHEMA_VERSION,
            **({"unlisted": dict(item.unlisted)} if item.unlisted else {})}
    if isinstance(item, SEAT_INPUT_CLASSES):
        return seat_to_dict(item)
    if isinstance(item, PlayerCardRead):
        return card_read_to_dict(item)
    if isinstance(item, SEAT_CHANGE_CLASSES):
        return seat_change_to_dict(item)
    if isinstance(item, SHIFT_INPUT_CLASSES):
        return shift_to_dict(item)
    return to_dict(item)
