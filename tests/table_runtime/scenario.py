"""A small script language for whole rounds, so each golden test reads like the dealer's procedure.

Bets: ``"1:1000 3:2000,c=500"`` (box 1 seated 10.00, box 3 seated 20.00 with
behind player c at 5.00). Script: card codes and commands separated by spaces:
``NEXT DOUBLE DOUBLE:c SPLIT SPLIT:c,d UNDO CONFIRM VOID DISCARD INS:1:500
SHUFFLE CUT BETS SURRENDER``. Burns are played automatically after the shoe is shuffled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm, Event, Payout
from table_runtime.game.inputs import (
    BehindBet,
    BetsLocked,
    BoxBet,
    CardDrawn,
    Confirm,
    CutCardReached,
    Discard,
    Double,
    Input,
    InsurancePlaced,
    Next,
    ShoeShuffled,
    Split,
    Surrender,
    Undo,
    Void,
)
from table_runtime.game.rules import RuleOptions, TableLimits, profile
from table_runtime.game.snapshot import table_snapshot
from table_runtime.game.table import Table, replay

BURNS = ["9C", "9D", "9H", "9S", "8C"]


def parse_bets(text: str) -> BetsLocked:
    bets = []
    for part in text.split():
        head, *behind = part.split(",")
        box, cents = head.split(":")
        bets.append(BoxBet(box=int(box), seated_cents=int(cents), owner=f"p{box}",
                           behind=tuple(BehindBet(owner=o, cents=int(c)) for o, c in (b.split("=") for b in behind))))
    return BetsLocked(bets=tuple(bets))


def parse_step(token: str, bets: str) -> Input:
    name, _, rest = token.partition(":")
    following = tuple(rest.split(",")) if rest else ()
    simple: dict[str, Input] = {"NEXT": Next(), "UNDO": Undo(), "CONFIRM": Confirm(), "VOID": Void(),
                                "DISCARD": Discard(), "CUT": CutCardReached(),
                                "SURRENDER": Surrender()}
    if name in simple:
        return simple[name]
    if name == "DOUBLE":
        return Double(behind_following=following)
    if name == "SPLIT":
        return Split(behind_following=following)
    if name == "INS":
        box, cents = rest.split(":")
        return InsurancePlaced(box=int(box), cents=int(cents))
    if name == "SHUFFLE":
        return ShoeShuffled(shoe_id=rest or "S2")
    if name == "BETS":
        return parse_bets(bets)
    return CardDrawn(card=Card.parse(token))


@dataclass
class Played:
    table: Table
    inputs: list[Input]
    events: list[Event] = field(default_factory=list)

    @property
    def alarms(self) -> list[Alarm]:
        return [event for event in self.events if isinstance(event, Alarm)]

    @property
    def alarm_kinds(self) -> list[str]:
        return [alarm.kind for alarm in self.alarms]

    @property
    def payouts(self) -> tuple[Payout, ...]:
        assert self.table.round is not None
        return self.table.round.payouts

    def net(self) -> dict[int, int]:
        result: dict[int, int] = {}
        for payout in self.payouts:
            result[payout.box] = result.get(payout.box, 0) + payout.net_cents
        return result

    def outcomes(self, box: int) -> list[tuple[int, str, str, int]]:
        return [(p.hand, p.kind, p.outcome, p.net_cents) for p in self.payouts if p.box == box]


def play(script: str, bets: str = "1:1000", rules: RuleOptions | str = "fr-casino",
         limits: TableLimits | None = None, lock: bool = True) -> Played:
    """Shuffle, burn, lock `bets`, then run `script`; checks replay == live at the end."""
    options = profile(rules) if isinstance(rules, str) else rules
    inputs: list[Input] = [ShoeShuffled(shoe_id="S1")]
    inputs += [CardDrawn(card=Card.parse(code)) for code in BURNS[: options.burn_cards]]
    if lock:
        inputs.append(parse_bets(bets))
    inputs += [parse_step(token, bets) for token in script.split()]
    table = Table(options, limits)
    played = Played(table, inputs)
    for item in inputs:
        played.events.extend(table.apply(item))
    assert table_snapshot(replay(options, inputs, limits)) == table_snapshot(table)
    return played
