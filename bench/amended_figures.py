"""The 2020 amendments' figures, exact and simulated side by side (issue 22): the house edge of a profile
with and without surrender (55-4 1°), the bank's final result and each hyper black jack case's EV (55-4 6°).

Exact: the strategy package (off the top of a full shoe). Simulated: `simulate` through the round engine,
shoes dealt to the cut card, the players surrendering by the chart and a unit on every hyper case. Prints
each figure, the simulated one with its standard error, and how many standard errors apart they are.

    python -m bench.amended_figures [--profile fr-2020] [--rounds 2000000] [--boxes 1] [--workers 4] [--seed 22]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from simulators.simulation import simulate
from table_runtime.game.hyper import HyperCase
from table_runtime.game.rules import PROFILES
from table_runtime.strategy import PlayTerms, solve
from table_runtime.strategy.final_result import final_result_distribution, hyper_ev


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--profile", default="fr-2020", choices=sorted(PROFILES))
    parser.add_argument("--rounds", type=int, default=2_000_000)
    parser.add_argument("--boxes", type=int, default=1)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args(argv)
    rules = PROFILES[args.profile]
    terms = PlayTerms.from_options(rules)
    with_it = solve(dataclasses.replace(terms, surrender=True)).house_edge
    without = solve(dataclasses.replace(terms, surrender=False)).house_edge
    exact_edge = solve(terms).house_edge
    final = final_result_distribution(terms.decks, terms.dealer_hits_soft_17)
    evs = hyper_ev(final)
    result = simulate(rules, args.rounds, boxes=args.boxes, seed=args.seed, workers=args.workers,
                      hyper_cases=tuple(HyperCase))
    hyper = result.document()["hyper"]
    print(f"python -m bench.amended_figures --profile {args.profile} --rounds {args.rounds} --boxes {args.boxes} "
          f"--workers {args.workers} --seed {args.seed}")
    print(f"exact house edge {100 * with_it:.3f}% with surrender, {100 * without:.3f}% without "
          f"({args.profile}: {100 * exact_edge:.3f}%)")
    print(f"{'figure':<24} {'exact':>9} {'simulated':>10} {'± s.e.':>8} {'z':>6}")

    def row(name: str, exact: float, simulated: float, error: float) -> None:
        print(f"{name:<24} {100 * exact:+8.3f}% {100 * simulated:+9.3f}% {100 * error:7.3f}% "
              f"{(simulated - exact) / error if error else 0.0:+6.2f}")

    row("house edge", exact_edge, -result.ev, result.stderr)
    rounds = hyper["rounds"]
    for case in HyperCase:
        p = final[case]
        simulated_p = hyper["bank_final_result"][case.value]
        row(f"P({case.label})", p, simulated_p, (simulated_p * (1 - simulated_p) / rounds) ** 0.5)
    for case in HyperCase:
        row(f"EV {case.label}", evs[case], hyper["ev"][case.value], hyper["stderr"][case.value])
    print(f"{result.tally.rounds:,} rounds on {args.boxes} box(es), {result.tally.surrenders:,} surrenders, "
          f"{result.seconds:.0f} s with {args.workers} workers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
