"""A SHA-256 of everything the engine says over simulated rounds: the check that a change kept it identical.

Every profile at 2 and 7 boxes: the real shoe procedure, the basic-strategy
player, and at random an UNDO during play and insurance on a bank ace. It
hashes the events of every input (as the journal encodes them) and the table
snapshot every few steps and at each settlement. Two builds of the engine (a
refactoring, or the mypyc-compiled wheel) are the same engine when they print
the same digest:

    python tests/table_runtime/engine_digest.py 800
    python tests/table_runtime/engine_digest.py 800 fr-casino online   # those profiles only
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from typing import Any

from simulators.players import BasicStrategyPlayer, decide
from simulators.simulation import DealingShoe, flat_bets
from table_runtime.game.codec import to_dict
from table_runtime.game.events import Event
from table_runtime.game.inputs import Confirm, Input, InsurancePlaced, Undo
from table_runtime.game.rules import PROFILES
from table_runtime.game.snapshot import table_snapshot
from table_runtime.game.table import Table


def digest(rounds: int, profiles: tuple[str, ...] = ()) -> str:
    """The digest of `rounds` rounds per profile (all of them unless named) and box count."""
    sha = hashlib.sha256()

    def record(events: list[Event], *head: str) -> None:
        sha.update(json.dumps([*head, *(to_dict(event) for event in events)], sort_keys=True, default=str).encode())

    def snapshot(table: Table) -> None:
        sha.update(json.dumps(table_snapshot(table), sort_keys=True).encode())

    for name, rules in sorted(PROFILES.items()):
        if profiles and name not in profiles:
            continue
        for boxes in (2, 7):
            rng = random.Random(f"{name}{boxes}")
            table = Table(rules)
            shoe = DealingShoe(table, rng)
            player = BasicStrategyPlayer.for_rules(rules)

            def apply(item: Input, table: Table = table) -> None:
                record(table.apply(item), type(item).__name__)

            for _ in range(rounds):
                if shoe.needs_new_shoe:
                    shoe.new_shoe()
                apply(flat_bets(boxes))
                steps = 0
                round_: Any = table.round
                while round_.phase != "settlement":
                    steps += 1
                    if round_.phase == "insurance":
                        if rng.random() < 0.3:
                            box = rng.choice(round_.boxes)
                            apply(InsurancePlaced(box=box.number, cents=box.bet.seated_cents // 2))
                        apply(Confirm())
                        continue
                    if round_.phase == "playing":
                        if rng.random() < 0.05 and "UNDO" in round_.allowed():
                            apply(Undo())
                        decision = decide(round_, player) if round_.current_hand is not None else None
                        if round_.phase != "playing":
                            continue
                        if decision is None:
                            record(shoe.draw())
                        else:
                            apply(decision)
                    else:
                        record(shoe.draw())
                    if steps % 5 == 0:
                        snapshot(table)
                snapshot(table)
                apply(Confirm())
    return sha.hexdigest()


if __name__ == "__main__":
    print(digest(int(sys.argv[1]) if len(sys.argv) > 1 else 800, tuple(sys.argv[2:])))
