"""Rule options and the named profiles of docs/rules.md.

Every difference between the seed texts is an option with a default; a profile
is a named set of option values. Options load from a TOML table such as::

    [rules]
    profile = "fr-casino"
    dealer_hits_soft_17 = true   # an override on top of the profile

An unknown option or a bad value is a `RuleOptionError` naming the key.
"""

from __future__ import annotations

import dataclasses
import enum
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_runtime.errors import RuleOptionError
from table_runtime.text_files import read_text


class DoubleOn(enum.StrEnum):
    """Which first two cards a hand may double on (`double_on`)."""

    ANY_TWO = "any_two"  # art. 55-4 « Double-down », the houses' texts
    NINE_TEN_ELEVEN = "9_10_11"  # a hard or soft total of 9, 10 or 11 only: the houses' texts


class SplitMatch(enum.StrEnum):
    """Which pairs split (`split_match`)."""

    VALUE = "value"  # two cards of the same value (a king and a ten): art. 55-4 « Les paires » "de même valeur"
    RANK = "rank"  # two cards of the same rank only: the houses' texts, "identiques"


class BankBlackjackTakes(enum.StrEnum):
    """What a bank blackjack takes of a doubled or split hand (`bank_blackjack_takes`)."""

    ALL = "all"  # every stake, the double's and the split's too: the online text
    ORIGINAL_ONLY = "original_only"  # the original stake only; the rest is given back


# The options that are on or off.
_SWITCHES = ("shuffle_every_round", "double_after_split", "pay_blackjack_before_bank", "ten_card_charlie",
             "dealer_hits_soft_17", "surrender", "hyper_blackjack", "hyper_seated_only", "no_behind_while_seat_vacant")

# The options whose value is one of a set of names: a StrEnum each, so TOML, to_dict() and the journal's terms
# keep the plain strings.
_CHOICES: dict[str, type[enum.StrEnum]] = {
    "double_on": DoubleOn,
    "split_match": SplitMatch,
    "bank_blackjack_takes": BankBlackjackTakes,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleOptions:
    """The rules one table plays by. Defaults are the regulation (seed 000)."""

    profile: str = "fr-casino"
    decks: int = 6  # art. 55-4, « six jeux de cinquante-deux cartes », the houses' texts
    burn_cards: int = 5  # the houses' texts
    cut_card_depth: int = 52  # cards behind the cut card: "about one deck" (the houses' texts)
    shuffle_every_round: bool = False  # the online text
    double_on: DoubleOn = DoubleOn.ANY_TWO  # art. 55-4 « Double-down »; 9_10_11 in the houses' texts
    double_after_split: bool = True  # art. 55-4 « Double-down », the houses' texts
    split_match: SplitMatch = SplitMatch.VALUE  # art. 55-4 « Les paires » "de même valeur"; rank: "identiques"
    max_hands_after_split: int | None = None  # None = no limit (art. 55-4 « Les paires »); 3 or 2 in the houses' texts
    pay_blackjack_before_bank: bool = False  # the houses' texts
    min_boxes_to_deal: int = 1  # 2 in the houses' texts
    ten_card_charlie: bool = False  # the online text
    dealer_hits_soft_17: bool = False  # art. 55-4 « Déroulement de la partie » NOTA: the bank stands on soft 17
    bank_blackjack_takes: BankBlackjackTakes = BankBlackjackTakes.ALL  # the online text
    blackjack_round_down_cents: int = 0  # 0 = pay 3:2 exactly; else round down to this chip
    boxes: int = 7  # art. 55-4, « sept joueurs assis »
    # The arrêté of 14 May 2007 as amended (art. 55-4; docs/rules.md "The amended text"): each off by default.
    surrender: bool = False  # 55-4 1° (arrêté of 6 May 2020): give up the first two cards, half the stake back
    hyper_blackjack: bool = False  # 55-4 6°: the seven-case hyper black jack field along the insurance line
    hyper_seated_only: bool = False  # 55-4 6°: the casino may keep the hyper field to seated players
    no_behind_while_seat_vacant: bool = False  # 55-4 (2020): no playing behind while a seat is vacant
    max_boxes_per_player: int | None = None  # 55-4 (2020): None = no limit; N = at most N boxes a player

    def __post_init__(self) -> None:
        _check_int(self, "decks", 1, 8)
        _check_int(self, "burn_cards", 0, 52)
        _check_int(self, "cut_card_depth", 0, 52 * self.decks - 1)
        _check_int(self, "min_boxes_to_deal", 1, self.boxes)
        _check_int(self, "blackjack_round_down_cents", 0, 100_000)
        _check_int(self, "boxes", 1, 7)
        for key, choices in _CHOICES.items():
            if not isinstance(getattr(self, key), choices):  # the strings are made members by `named` first
                _member(key, getattr(self, key))
        boxes_limit = self.max_boxes_per_player
        if boxes_limit is not None and (isinstance(boxes_limit, bool) or not isinstance(boxes_limit, int)
                                        or not 1 <= boxes_limit <= self.boxes):
            raise RuleOptionError("rules.max_boxes_per_player",
                                  f"{boxes_limit!r}: a whole number from 1 to {self.boxes} or 'unlimited'")
        limit = self.max_hands_after_split
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise RuleOptionError("rules.max_hands_after_split", f"{limit!r}: a whole number >= 1 or 'unlimited'")
        for key in _SWITCHES:
            _check_switch(key, getattr(self, key))

    @property
    def may_split(self) -> bool:
        return self.max_hands_after_split is None or self.max_hands_after_split >= 2

    def replace(self, **changes: Any) -> RuleOptions:
        """These options with `changes` (a named choice may be given as its string: `double_on="9_10_11"`)."""
        return dataclasses.replace(self, **named(changes))

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> RuleOptions:
        """The options `to_dict` gave (the journal's terms)."""
        return cls(**named(options))

    def to_dict(self) -> dict[str, Any]:
        """The options as plain values (the named ones as their strings): the journal's terms, `table-runtime
        rules`."""
        return {key: str(value) if isinstance(value, enum.Enum) else value
                for key, value in dataclasses.asdict(self).items()}


def _member(key: str, value: Any) -> enum.StrEnum:
    """The member of option `key`'s choices named `value`; a `RuleOptionError` listing them otherwise."""
    choices = _CHOICES[key]
    try:
        return choices(value)
    except ValueError:
        names = tuple(str(member) for member in choices)
        raise RuleOptionError(f"rules.{key}", f"{value!r} is not one of {names}") from None


def _check_switch(key: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise RuleOptionError(f"rules.{key}", f"{value!r}: true or false")


def named(options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` with each named choice (`double_on`, ...) given as a string made its member, and each switch
    checked: a dataclass field takes its declared type only (the compiled engine checks it before
    `__post_init__` could name the key)."""
    for key in _SWITCHES:
        if key in options:
            _check_switch(key, options[key])
    return {key: _member(key, value) if key in _CHOICES else value for key, value in options.items()}


def _check_int(options: RuleOptions, key: str, low: int, high: int) -> None:
    value = getattr(options, key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RuleOptionError(f"rules.{key}", f"{value!r}: a whole number from {low} to {high}")


PROFILES: dict[str, RuleOptions] = {
    # The French casino regulation, seed 000.
    "fr-casino": RuleOptions(profile="fr-casino"),
    # Seeds 001 and 002: double on 9-11, identical pairs, 3 hands, blackjack paid at once, 2 boxes.
    "fr-classic": RuleOptions(
        profile="fr-classic",
        double_on=DoubleOn.NINE_TEN_ELEVEN,
        split_match=SplitMatch.RANK,
        max_hands_after_split=3,
        pay_blackjack_before_bank=True,
        min_boxes_to_deal=2,
    ),
    # Seed 004: shuffle every round, no burn, split once, ten-card charlie.
    "online": RuleOptions(
        profile="online",
        burn_cards=0,
        cut_card_depth=0,
        shuffle_every_round=True,
        max_hands_after_split=2,
        ten_card_charlie=True,
    ),
    # The regulation as amended in 2020: fr-casino with hyper black jack, surrender and both director's options.
    "fr-2020": RuleOptions(
        profile="fr-2020",
        surrender=True,
        hyper_blackjack=True,
        no_behind_while_seat_vacant=True,
        max_boxes_per_player=2,
    ),
}

_FIELDS = {f.name for f in dataclasses.fields(RuleOptions)}


def profile(name: str) -> RuleOptions:
    """The named profile, or a `RuleOptionError` listing the known names."""
    try:
        return PROFILES[name]
    except KeyError:
        raise RuleOptionError("rules.profile", f"unknown profile {name!r}; known: {sorted(PROFILES)}") from None


def rules_from_mapping(table: Mapping[str, Any]) -> RuleOptions:
    """Options from a `[rules]` table: `profile` first, then overrides."""
    data = dict(table)
    base = profile(str(data.pop("profile", "fr-casino")))
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise RuleOptionError(f"rules.{unknown[0]}", f"unknown rule option; known: {sorted(_FIELDS - {'profile'})}")
    for key in ("max_hands_after_split", "max_boxes_per_player"):
        if data.get(key) in ("unlimited", 0):
            data[key] = None
    try:
        return base.replace(**data)
    except TypeError as error:  # pragma: no cover - dataclass rejects a key we did not list
        raise RuleOptionError("rules", str(error)) from error


def load_rules(path: str | Path) -> RuleOptions:
    """Options from a TOML file holding a `[rules]` table (or bare keys)."""
    try:
        document = tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as error:
        raise RuleOptionError("rules", f"{path}: not valid TOML: {error}") from error
    table = document.get("rules", document)
    if not isinstance(table, dict):
        raise RuleOptionError("rules", f"{path}: expected a [rules] table")
    if not table:
        raise RuleOptionError("rules", f"{path}: no rule options; a [rules] table with a profile and options, "
                                       "e.g. profile = \"fr-casino\"")
    return rules_from_mapping(table)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLimits:
    """Posted table minimum and maximum per box, in cents (art. 55-4, « les joueurs debout », docs/rules.md "Bet
    limits"), and per hyper black jack case
    (55-4 6°: the director sets them)."""

    min_bet_cents: int = 500
    max_bet_cents: int = 500_000
    hyper_min_bet_cents: int = 500
    hyper_max_bet_cents: int = 50_000
    # The largest buy-in the dealer records at once (core/buy_ins.py): a house setting, not a term of the game
    # (core/terms.py GAME_LIMITS leaves it out: another one at a start is a new terms row, the same game).
    buy_in_max_cents: int = 1_000_000

    def __post_init__(self) -> None:
        if not 0 < self.min_bet_cents <= self.max_bet_cents:
            raise RuleOptionError("limits", f"need 0 < min ({self.min_bet_cents}) <= max ({self.max_bet_cents})")
        if not 0 < self.hyper_min_bet_cents <= self.hyper_max_bet_cents:
            raise RuleOptionError("limits", f"need 0 < hyper min ({self.hyper_min_bet_cents}) "
                                            f"<= hyper max ({self.hyper_max_bet_cents})")
        if self.buy_in_max_cents <= 0:
            raise RuleOptionError("limits", f"need a buy-in maximum over 0 ({self.buy_in_max_cents})")
