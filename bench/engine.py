"""Rounds per second of the round engine: full 7-box rounds through `Table.apply`.

Every box plays a fixed script (split eights, double on 10 and 11, hit below
17, stand otherwise) so the figure measures the engine and the shoe procedure,
not the strategy. Prints the figure and the command line that produced it.

    python -m bench.engine [--rounds N] [--boxes K] [--profile NAME] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from simulators.simulation import DealingShoe, flat_bets
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import Confirm, Double, Next, Split
from table_runtime.game.round import BANK, DEALING, INSURANCE, PLAYING, SETTLEMENT, Round
from table_runtime.game.rules import PROFILES
from table_runtime.game.table import Table

NEXT, DOUBLE, SPLIT, CONFIRM = Next(), Double(), Split(), Confirm()


def scripted(round_: Round) -> Next | Double | Split | None:
    """The script's input for the current hand (None: hit)."""
    hand = round_.current_hand
    assert hand is not None
    cards = hand.cards
    if len(cards) < 2 or hand.doubled:
        return None
    if len(cards) == 2:
        allowed = round_.allowed()
        if cards[0].value == cards[1].value == 8 and "SPLIT" in allowed:
            return SPLIT
        if hand.total in (10, 11) and "DOUBLE" in allowed:
            return DOUBLE
    return None if hand.total < 17 else NEXT


def play(profile: str, rounds: int, boxes: int, seed: int) -> float:
    """Play `rounds` rounds; returns the seconds they took."""
    table = Table(PROFILES[profile])
    shoe = DealingShoe(table, random.Random(seed))
    bets = flat_bets(boxes)
    apply, draw = table.apply, shoe.draw
    started = time.perf_counter()
    for _ in range(rounds):
        if shoe.needs_new_shoe:
            shoe.new_shoe()
        apply(bets)
        round_ = table.round
        assert round_ is not None
        while (phase := round_.phase) != SETTLEMENT:
            if phase == PLAYING:
                decision = scripted(round_)
                if decision is None:
                    draw()
                else:
                    events = apply(decision)
                    assert not (events and type(events[0]) is Alarm), events
            elif phase in (DEALING, BANK):
                draw()
            elif phase == INSURANCE:
                apply(CONFIRM)
            else:
                raise RuntimeError(f"round ended in phase {phase}")
        apply(CONFIRM)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50_000)
    parser.add_argument("--boxes", type=int, default=7)
    parser.add_argument("--profile", default="fr-casino", choices=sorted(PROFILES))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cpu = time.process_time()
    seconds = play(args.profile, args.rounds, args.boxes, args.seed)
    cpu = time.process_time() - cpu
    print(f"{args.rounds / seconds:,.0f} rounds/s ({args.rounds / cpu:,.0f} per CPU second), "
          f"{args.boxes} boxes, {args.profile}, one process")
    print("command: python -m bench.engine " + " ".join(sys.argv[1:] if argv is None else argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
