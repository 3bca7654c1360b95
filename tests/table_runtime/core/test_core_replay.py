"""Replay equals live for the whole core, chips included (hypothesis): random zone changes, cards and commands.

The live core takes each step as the runtime does (a zone change as the readers' edge reports it, a card with
the lock it may bring, a press decided by the command table); the core rebuilt from the journaled inputs
(through the journal's codec) has the same zones, locks, windows and round.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from table_runtime.core.commands import Submit
from table_runtime.core.inputs import CoreInput, ZoneChanged, ZoneChip, core_to_dict
from table_runtime.core.record import replay
from table_runtime.core.table_core import TableCore
from table_runtime.game.cards import Card, new_shoe
from table_runtime.game.commands import Command
from table_runtime.game.inputs import CardDrawn, ShoeShuffled
from table_runtime.game.rules import PROFILES, RuleOptions, profile
from table_runtime.game.snapshot import table_snapshot

ZONES = ("box1", "box1.behind", "box1.insurance", "box2", "box2.insurance")
CHIPS = tuple(f"E00400000000{n:04X}" for n in range(12))
STEP = st.one_of(
    st.tuples(st.just("zone"), st.sampled_from(ZONES), st.frozensets(st.sampled_from(CHIPS), max_size=4)),
    st.tuples(st.just("card"), st.just(""), st.just(frozenset[str]())),
    st.tuples(st.just("press"), st.sampled_from([c.value for c in Command if c != Command.ACK_ALARM]),
              st.just(frozenset[str]())),
    st.tuples(st.just("card"), st.just(""), st.just(frozenset[str]())),  # cards three times as often
    st.tuples(st.just("card"), st.just(""), st.just(frozenset[str]())),
    # who sits where (core/seating.py): "3" seats player A or B on box 3, "-3" clears it
    st.tuples(st.just("seat"), st.sampled_from([f"{sign}{box}" for sign in ("", "-") for box in range(1, 8)]),
              st.sampled_from([frozenset({"A"}), frozenset({"B"})])),
)
# The boxes without zones are seated first: where the director forbids playing behind while a seat is vacant
# (fr-2020), box1's behind stake plays.
OPENING = [*(("seat", str(box), frozenset({f"P{box}"})) for box in range(3, 8)),  # one player a seat
           ("zone", "box1", frozenset(CHIPS[:2])), ("zone", "box2", frozenset(CHIPS[2:3])),
           ("zone", "box1.behind", frozenset(CHIPS[3:4])), ("press", "DEAL", frozenset[str]())]


@dataclass(frozen=True, slots=True)
class Row:
    """An input row as the journal holds it."""

    seq: int
    kind: str
    body: dict[str, Any]


def chip(uid: str) -> ZoneChip:
    if uid == CHIPS[-1]:  # one chip the registry refuses
        return ZoneChip(uid=uid, cents=0, refused="counterfeit_chip", detail="UID unknown", tag_cents=500)
    return ZoneChip(uid=uid, cents=500 * (1 + CHIPS.index(uid) % 3))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(sorted(PROFILES)), steps=st.lists(STEP, max_size=80))
def test_the_core_rebuilt_from_the_journal_equals_the_live_core(
        seed: int, rules: str, steps: list[tuple[str, str, frozenset[str]]]) -> None:
    options = profile(rules)
    live = TableCore(options, zones=ZONES)
    journal: list[Row] = []
    shoe = new_shoe(options.decks)
    random.Random(seed).shuffle(shoe)

    def apply(item: CoreInput) -> None:
        live.step(item, len(journal) + 1)
        journal.append(Row(len(journal) + 1, "input", core_to_dict(item)))

    apply(ShoeShuffled(shoe_id="S1"))
    where: dict[str, str] = {}
    burns = [("card", "", frozenset[str]())] * options.burn_cards
    for number, step in enumerate([*burns, *OPENING, *steps]):
        if number % 10 == 9:
            assert_replays(options, journal, live)
        take_step(live, apply, step, where, shoe)
    assert_replays(options, journal, live)


def take_step(live: TableCore, apply: Callable[[CoreInput], None], step: tuple[str, str, frozenset[str]],
              where: dict[str, str], shoe: list[Card]) -> None:
    """One step as the runtime takes it, each input through `apply`; `where` is each chip's zone so far."""
    kind, zone, uids = step
    if kind == "zone":  # a chip is in one place: the zones it left change too, as the edge reports them
        left = {where[uid] for uid in uids if where.get(uid, zone) != zone}
        for uid in uids:
            where[uid] = zone
        for uid, at in list(where.items()):
            if at == zone and uid not in uids:
                del where[uid]
        for changed in (*sorted(left), zone):
            report = ZoneChanged(zone=changed, chips=tuple(
                chip(uid) for uid in sorted(uid for uid, at in where.items() if at == changed)))
            if live.chips.differs(report):
                apply(report)
    elif kind == "card" and shoe:
        for item, _ in live.card_inputs(CardDrawn(card=shoe.pop()), "shoe"):
            apply(item)
    elif kind in ("press", "seat"):
        if kind == "seat":
            name, args = ("SEAT_CLEAR", {"box": -int(zone)}) if zone.startswith("-") else (
                "SEAT", {"box": int(zone), "player": min(uids)})
        else:
            name, args = zone, {"card": "AS", "box": 1, "player": "A"}
        decision = live.decide(name, args, role="supervisor", source="panel")
        if isinstance(decision, Submit):
            for item, _ in decision.inputs:
                apply(item)


def assert_replays(options: RuleOptions, journal: list[Row], live: TableCore) -> None:
    """The core rebuilt from the journal's rows (the one fold, through the codec) is the live one: zones, locks,
    windows, what each double or split closed, the round, and what the display is shown."""
    rebuilt = replay(TableCore(options, zones=ZONES), journal)
    assert rebuilt.chips == live.chips
    assert table_snapshot(rebuilt.table) == table_snapshot(live.table)
    assert rebuilt.snapshot_extra() == live.snapshot_extra()
