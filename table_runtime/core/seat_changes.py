"""A seated player's pause and move, and the player betting behind a box: journaled inputs (issue 23).

Who sits where is core/seating.py (`PlayerSeated`, `SeatCleared`). What a rated session also needs from the
dealer (or the pit) on the display, each one input journaled like the others (docs/journal.md), so the rating
of a session after a restart is the fold of the journal, never a guess:

- `PlayerPaused` / `PlayerResumed` (PAUSE / RESUME): the seated player of a box steps away and comes back; the
  time between does not count as time played. Nothing of the game changes: a paused player's box still plays
  if a stake is on it.
- `PlayerMoved` (MOVE): the seated player of `from_box` takes `to_box`, in one input: his session goes on (two
  inputs, a clear then a seat, would close it and open another). His pause moves with him; a player behind
  stays on the box he bets on.
- `BehindJoined` / `BehindLeft` (BEHIND / BEHIND_CLEAR): the player `player` bets behind box `box` (art. 55-4, « les
joueurs debout »), and
  left. One labelled player behind a box; the behind stakes of the box are his.

What each command may be is decided here (`seat_change`) from the seats as the core holds them: a pause, a
resume or a move names a box with a seated player, a move a free box to go to. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from table_runtime.core.seating import PlayerSeated, SeatCleared, player_label
from table_runtime.game.codec import CodecError
from table_runtime.game.commands import Command
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.refusals import Refusal, RefusalReason


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerPaused:
    """The seated player of box `box` stepped away (his time stops counting)."""

    box: int
    by: str = "dealer"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerResumed:
    """The seated player of box `box` is back."""

    box: int
    by: str = "dealer"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerMoved:
    """The seated player of `from_box` moved to `to_box` (a free box): the same session."""

    from_box: int
    to_box: int
    by: str = "dealer"


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindJoined:
    """Player `player` bets behind box `box` (replacing whoever did)."""

    box: int
    player: str
    by: str = "dealer"


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindLeft:
    """The player behind box `box` left."""

    box: int
    by: str = "dealer"


SeatChange = PlayerPaused | PlayerResumed | PlayerMoved | BehindJoined | BehindLeft
SEAT_CHANGE_CLASSES: Final = (PlayerPaused, PlayerResumed, PlayerMoved, BehindJoined, BehindLeft)
SEAT_CHANGE_TYPES: Final[dict[str, type[SeatChange]]] = {kind.__name__: kind for kind in SEAT_CHANGE_CLASSES}
SEAT_CHANGE_COMMANDS: Final = frozenset({Command.PAUSE, Command.RESUME, Command.MOVE, Command.BEHIND,
                                         Command.BEHIND_CLEAR})


def seat_change_to_dict(item: SeatChange) -> dict[str, Any]:
    """The journal body of a seat change."""
    if isinstance(item, PlayerMoved):
        body: dict[str, Any] = {"from_box": item.from_box, "to_box": item.to_box}
    else:
        body = {"box": item.box}
    if isinstance(item, BehindJoined):
        body["player"] = item.player
    body.update(by=item.by, type=type(item).__name__, schema_version=SCHEMA_VERSION)
    return body


def seat_change_from_dict(body: Mapping[str, Any]) -> SeatChange:
    """The seat change a journal row holds; a `CodecError` naming what is wrong otherwise."""
    name = body.get("type")
    try:
        by = str(body.get("by", "dealer"))
        if name == "PlayerMoved":
            return PlayerMoved(from_box=int(body["from_box"]), to_box=int(body["to_box"]), by=by)
        if name == "BehindJoined":
            return BehindJoined(box=int(body["box"]), player=str(body["player"]), by=by)
        if name in ("PlayerPaused", "PlayerResumed", "BehindLeft"):
            return SEAT_CHANGE_TYPES[str(name)](box=int(body["box"]), by=by)  # type: ignore[call-arg]
    except (KeyError, TypeError, ValueError) as error:
        raise CodecError(f"bad {name} input: {error}") from error
    raise CodecError(f"unknown input type {name!r}")


class SeatChanges:
    """The paused boxes and the player behind each box, as the inputs said (the seated players: `Seating`)."""

    __slots__ = ("behind", "paused")

    def __init__(self, paused: set[int] | None = None, behind: Mapping[int, str] | None = None) -> None:
        self.paused: set[int] = set(paused or ())
        self.behind: dict[int, str] = dict(behind or {})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatChanges) and (self.paused, self.behind) == (other.paused, other.behind)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __bool__(self) -> bool:
        return bool(self.paused or self.behind)

    def apply(self, item: SeatChange | PlayerSeated | SeatCleared, players: dict[int, str]) -> None:
        """Fold one seat input; `players` is the seating's box -> player, which a move changes."""
        if isinstance(item, PlayerSeated | SeatCleared):  # a new player, or none: not paused
            self.paused.discard(item.box)
        elif isinstance(item, PlayerPaused):
            self.paused.add(item.box)
        elif isinstance(item, PlayerResumed):
            self.paused.discard(item.box)
        elif isinstance(item, PlayerMoved):
            player = players.pop(item.from_box, None)
            if player is not None:
                players[item.to_box] = player
            if item.from_box in self.paused:
                self.paused.discard(item.from_box)
                self.paused.add(item.to_box)
        elif isinstance(item, BehindJoined):
            self.behind[item.box] = item.player
        else:
            self.behind.pop(item.box, None)

    def state(self) -> dict[str, Any]:
        """As plain JSON (a checkpoint's, the snapshot's), only what is there."""
        state: dict[str, Any] = {}
        if self.paused:
            state["paused"] = sorted(self.paused)
        if self.behind:
            state["behind"] = {str(box): player for box, player in sorted(self.behind.items())}
        return state

    def view(self) -> dict[str, Any]:
        """What the snapshot shows of it: `seats_paused` (box numbers), `behind_players` (box -> player)."""
        state = self.state()
        return {name: state[key] for key, name in (("paused", "seats_paused"), ("behind", "behind_players"))
                if key in state}

    @classmethod
    def restore(cls, state: Mapping[str, Any]) -> SeatChanges:
        return cls({int(box) for box in state.get("paused", ())},
                   {int(box): str(player) for box, player in state.get("behind", {}).items()})


def _box(args: Mapping[str, Any], key: str, boxes: int) -> int | Refusal:
    box = args.get(key)
    if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= boxes:
        return Refusal(RefusalReason.BAD_SEAT, f"box {box!r} is not a box of the table (1 to {boxes})")
    return box


def seat_change(command: Command, args: Mapping[str, Any], *, by: str, boxes: int, players: Mapping[int, str],
                changes: SeatChanges) -> SeatChange | Refusal:
    """The input a PAUSE, RESUME, MOVE, BEHIND or BEHIND_CLEAR touch means, or why it is refused."""
    box = _box(args, "from_box" if command == Command.MOVE else "box", boxes)
    if isinstance(box, Refusal):
        return box
    if command == Command.BEHIND:
        label = player_label(args.get("player"))  # core/seating.py: the same labels as SEAT's
        if isinstance(label, Refusal):
            return label
        return BehindJoined(box=box, player=label, by=by)
    if command == Command.BEHIND_CLEAR:
        if box not in changes.behind:
            return Refusal(RefusalReason.BAD_SEAT, f"no player is behind box {box}")
        return BehindLeft(box=box, by=by)
    if box not in players:
        return Refusal(RefusalReason.BAD_SEAT, f"no player is seated on box {box}")
    if command == Command.PAUSE:
        if box in changes.paused:
            return Refusal(RefusalReason.BAD_SEAT, f"the player of box {box} is already paused")
        return PlayerPaused(box=box, by=by)
    if command == Command.RESUME:
        if box not in changes.paused:
            return Refusal(RefusalReason.BAD_SEAT, f"the player of box {box} is not paused")
        return PlayerResumed(box=box, by=by)
    to_box = _box(args, "to_box", boxes)
    if isinstance(to_box, Refusal):
        return to_box
    if to_box == box or to_box in players:
        return Refusal(RefusalReason.BAD_SEAT, f"box {to_box} is not free: a player moves to a free box")
    return PlayerMoved(from_box=box, to_box=to_box, by=by)


def seat_change_text(item: SeatChange) -> str:
    """One line for the dealer: "MOVE box2 -> box5"."""
    if isinstance(item, PlayerMoved):
        return f"MOVE box{item.from_box} -> box{item.to_box}"
    names = {PlayerPaused: "PAUSE", PlayerResumed: "RESUME", BehindJoined: "BEHIND", BehindLeft: "BEHIND_CLEAR"}
    return f"{names[type(item)]} box{item.box}"
