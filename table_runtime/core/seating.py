"""Who sits where, and the director's options checked at DEAL (55-4 as amended on 6 May 2020).

The dealer (or the pit) says on the display which player holds a box: `PlayerSeated` (box, player: a short
label the dealer picks, e.g. "A" or "12") and `SeatCleared` (the box's player left). Both are journaled inputs
like the game's (docs/journal.md), so who sits where after a restart is the fold of the journal, never a guess.
A box with a seated bet and no seat input is a distinct anonymous player. The inputs are the base of player
rating (issue 23): a player card read at the table is placed on a box as a `PlayerSeated` of source "card"
(core/player_cards.py); leaving a box is `SeatCleared`; moving is the two in one step.

The amended text lets the director « interdire de jouer debout lorsque des places assises sont vacantes »
(rule option `no_behind_while_seat_vacant`) and « limiter le nombre de cases sur lesquelles peut miser un
joueur » (`max_boxes_per_player`). Both are checked when the bets are locked (DEAL, or the first card out of
the shoe): a breach is an alarm naming the box and the rule, and the bets are not locked (the round does not
start) until the dealer has it corrected, as for the table's limits (game/decisions.py `bet_problems`). Once the
bets are locked, a SEAT that would put a player on more staked boxes of the round than allowed is refused
(`seat_refusal`): the round's stakes are fixed, so the check at DEAL cannot see it.

Who a label names: labels that differ only in case (« A » and « a ») are one player (`player_key`). A seat is
vacant when nobody bets on it and nobody sits at it; one player sits at one seat, so a label written on every free
box occupies one of them, not all (a player may bet a second box, 000, from the seat he sits at).

Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.codec import CodecError
from table_runtime.game.commands import Command
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import SCHEMA_VERSION, BetsLocked
from table_runtime.game.refusals import Refusal, RefusalReason
from table_runtime.game.rules import RuleOptions

PLAYER_LABEL_MAX = 16  # characters of a player's label: it is shown on a box of the display
LABEL_DIGITS_MAX: Final = 6  # digits in a label ("12" is one; a card's number has more)
RULE_VACANT: Final = citations.NO_BEHIND_WHILE_VACANT
RULE_BOXES: Final = citations.BOXES_PER_PLAYER


DISPLAY_SOURCE: Final = "display"  # the dealer or the pit named the player on the display (SEAT)
CARD_SOURCE: Final = "card"  # the player's card was read (core/player_cards.py): `player` is its pseudonym
SEAT_SOURCES: Final = (DISPLAY_SOURCE, CARD_SOURCE)
# The journal body's key for `PlayerSeated.source`: an input row's own `source` is where the row came from (the
# display, the panel, the card reader), core/journal_rows.py.
SOURCE_KEY: Final = "seat_source"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSeated:
    """The dealer (`by`) says player `player` holds box `box` (replacing whoever held it); `source`: how the
    player was named (a label on the display, or a card read)."""

    box: int
    player: str
    by: str = "dealer"
    source: str = DISPLAY_SOURCE


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatCleared:
    """The player of box `box` left: the box is anonymous (or vacant, with no bet) again."""

    box: int
    by: str = "dealer"


SeatInput = PlayerSeated | SeatCleared
SEAT_INPUT_TYPES: Final[dict[str, type[SeatInput]]] = {"PlayerSeated": PlayerSeated, "SeatCleared": SeatCleared}
SEAT_COMMANDS: Final = frozenset({Command.SEAT, Command.SEAT_CLEAR})


def seat_to_dict(item: SeatInput) -> dict[str, Any]:
    """The journal body of a seat input."""
    body: dict[str, Any] = {"box": item.box}
    if isinstance(item, PlayerSeated):
        body["player"] = item.player
        if item.source != DISPLAY_SOURCE:  # absent: the display's, as in every row written before sources
            body[SOURCE_KEY] = item.source
    body.update(by=item.by, type=type(item).__name__, schema_version=SCHEMA_VERSION)
    return body


def seat_from_dict(body: Mapping[str, Any]) -> SeatInput:
    """The seat input a journal row holds; a `CodecError` naming what is wrong otherwise."""
    name = body.get("type")
    try:
        if name == "PlayerSeated":
            source = str(body.get(SOURCE_KEY, DISPLAY_SOURCE))
            if source not in SEAT_SOURCES:
                raise ValueError(f"source {source!r} is not one of {', '.join(SEAT_SOURCES)}")
            return PlayerSeated(box=int(body["box"]), player=str(body["player"]), by=str(body.get("by", "dealer")),
                                source=source)
        if name == "SeatCleared":
            return SeatCleared(box=int(body["box"]), by=str(body.get("by", "dealer")))
    except (KeyError, TypeError, ValueError) as error:
        raise CodecError(f"bad {name} input: {error}") from error
    raise CodecError(f"unknown input type {name!r}")


def player_key(label: str) -> str:
    """Who a label names, for the director's options: labels that differ only in case are one player."""
    return label.casefold()


def player_label(player: object) -> str | Refusal:
    """A label the dealer gives a player (SEAT, BEHIND), stripped, or why it is none: 1 to `PLAYER_LABEL_MAX`
    printable characters, and not a card's number (more than `LABEL_DIGITS_MAX` digits): a player card is read
    by the reader, which gives the table its pseudonym, never typed (issue 30)."""
    label = player.strip() if isinstance(player, str) else ""
    if not label or len(label) > PLAYER_LABEL_MAX or not label.isprintable():
        return Refusal(RefusalReason.BAD_SEAT, f"a player is named by 1 to {PLAYER_LABEL_MAX} printable characters")
    if sum(char.isdigit() for char in label) > LABEL_DIGITS_MAX:
        return Refusal(RefusalReason.BAD_SEAT, f"a player's label holds at most {LABEL_DIGITS_MAX} digits: a card "
                                               "number is never typed, the card is read")
    return label


def seat_input(command: Command, args: Mapping[str, Any], *, by: str, boxes: int) -> SeatInput | Refusal:
    """The input a SEAT or SEAT_CLEAR touch means, or why it is refused (a box of the table, a label)."""
    box = args.get("box")
    if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= boxes:
        return Refusal(RefusalReason.BAD_SEAT, f"box {box!r} is not a box of the table (1 to {boxes})")
    if command == Command.SEAT_CLEAR:
        return SeatCleared(box=box, by=by)
    label = player_label(args.get("player"))
    if isinstance(label, Refusal):
        return label
    return PlayerSeated(box=box, player=label, by=by)


class Seating:
    """Who holds each box (box -> the player's label), as the seat inputs said."""

    __slots__ = ("players",)

    def __init__(self, players: Mapping[int, str] | None = None) -> None:
        self.players: dict[int, str] = dict(players or {})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Seating) and self.players == other.players

    __hash__ = None  # type: ignore[assignment]  # mutable

    def apply(self, item: SeatInput) -> None:
        if isinstance(item, PlayerSeated):
            self.players[item.box] = item.player
        else:
            self.players.pop(item.box, None)

    def state(self) -> dict[str, str]:
        """As plain JSON (a checkpoint's, the snapshot's): box number as a string -> player."""
        return {str(box): player for box, player in sorted(self.players.items())}

    @classmethod
    def restore(cls, state: Mapping[str, Any]) -> Seating:
        return cls({int(box): str(player) for box, player in state.items()})

    def occupied(self, staked: set[int]) -> set[int]:
        """The boxes nobody bets on where a player sits: one per player (the lowest box labelled with him)."""
        seated: dict[str, int] = {}
        for box, player in sorted(self.players.items()):
            if box not in staked:
                seated.setdefault(player_key(player), box)
        return set(seated.values())

    def boxes_of(self, staked: set[int]) -> dict[str, list[int]]:
        """Each named player's staked boxes (by `player_key`), in box order."""
        by_player: dict[str, list[int]] = {}
        for box in sorted(staked):
            player = self.players.get(box)
            if player is not None:
                by_player.setdefault(player_key(player), []).append(box)
        return by_player

    def seat_refusal(self, item: PlayerSeated, staked: set[int], rules: RuleOptions) -> Refusal | None:
        """A SEAT (or a card placed) while a round is in play, `staked` its boxes with a seated stake: refused if
        it puts the player on more of them than `max_boxes_per_player`; None otherwise (and between rounds, where
        DEAL checks it)."""
        limit = rules.max_boxes_per_player
        if limit is None or item.box not in staked:
            return None
        key = player_key(item.player)
        held = sorted({box for box, player in self.players.items()
                       if box in staked and box != item.box and player_key(player) == key} | {item.box})
        if len(held) <= limit:
            return None
        named = ", ".join(f"box{box}" for box in held)
        return Refusal(RefusalReason.TOO_MANY_BOXES,
                       f"player {item.player} would bet on {len(held)} boxes of this round ({named}); at most "
                       f"{limit} per player")

    def deal_problems(self, locked: BetsLocked, rules: RuleOptions) -> list[Alarm]:
        """The director's options against the bets about to be locked: an alarm per breach (none when both
        options are off)."""
        problems: list[Alarm] = []
        staked = {bet.box for bet in locked.bets if bet.seated_cents > 0}
        if rules.no_behind_while_seat_vacant:
            occupied = self.occupied(staked)
            vacant = [box for box in range(1, rules.boxes + 1) if box not in staked and box not in occupied]
            for bet in locked.bets:
                behind = sum(stake.cents for stake in bet.behind)
                if vacant and behind:
                    seats = ", ".join(f"box{box}" for box in vacant)
                    problems.append(Alarm(
                        kind=AlarmKind.BEHIND_WHILE_SEAT_VACANT, box=bet.box, rule=RULE_VACANT,
                        amounts=(("seen_cents", behind), ("vacant_seats", len(vacant))),
                        message=f"box{bet.box}: {_euros(behind)} bet behind while {seats} "
                                f"{'is' if len(vacant) == 1 else 'are'} vacant: the player sits down, or takes "
                                f"the bet back"))
        limit = rules.max_boxes_per_player
        if limit is not None:
            for held in self.boxes_of(staked).values():
                if len(held) > limit:
                    player = self.players[held[0]]
                    named = ", ".join(f"box{box}" for box in held)
                    problems.append(Alarm(
                        kind=AlarmKind.TOO_MANY_BOXES, box=held[limit], rule=RULE_BOXES,
                        amounts=(("boxes", len(held)), ("max_boxes", limit)),
                        message=f"player {player} bets on {len(held)} boxes ({named}); at most {limit} per player: "
                                f"take the bet off box{held[limit]}" + (" and after" if len(held) > limit + 1
                                                                         else "")))
        return problems


DEAL_REFUSALS: Final = {AlarmKind.BEHIND_WHILE_SEAT_VACANT: RefusalReason.BEHIND_WHILE_SEAT_VACANT,
                        AlarmKind.TOO_MANY_BOXES: RefusalReason.TOO_MANY_BOXES}
"""The reason a DEAL refused by each of the director's options gives the display."""


def _euros(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"
