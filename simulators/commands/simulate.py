"""`table-runtime simulate`: Monte Carlo of a rule profile through the table's own round engine."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from tqdm import tqdm

from simulators.simulation import CASES, simulate
from simulators.strategy_cache import remember_cached
from table_runtime.game import round as round_module
from table_runtime.game.hyper import HyperCase
from table_runtime.game.rules import PROFILES, profile


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate", help="play the computed basic strategy through the round engine and report the return")
    parser.add_argument("--profile", default="fr-casino", choices=sorted(PROFILES))
    parser.add_argument("--rounds", type=_positive, required=True, help="rounds to play")
    parser.add_argument("--boxes", type=_positive, default=None,
                        help="boxes in play each round, up to 7 (default: the fewest the rules deal to)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the shuffles (default 0)")
    parser.add_argument("--workers", type=_workers, default=1,
                        help="processes, each with its own seeded shoe; the result depends on seed and workers "
                             f"(default 1; 0: one per core, {os.cpu_count()} on this machine)")
    parser.add_argument("--hyper", type=_cases, default=None, metavar="CASES",
                        help="one unit on each of these hyper black jack cases every round (55-4 6°): all, none, "
                             "or a comma list of 17, 18, 19, 20, 21, blackjack, bust (default: all where the "
                             "rules offer the field, else none)")
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


def parse_cases(text: str) -> tuple[HyperCase, ...]:
    """`all`, `none`, or cases separated by commas (17, 18, 19, 20, 21, blackjack, bust)."""
    if text == "all":
        return CASES
    if text == "none":
        return ()
    cases = []
    for part in text.split(","):
        try:
            cases.append(HyperCase(part.strip().lower()))
        except ValueError:
            names = ", ".join(case.value for case in CASES)
            raise ValueError(f"{part!r} is not a hyper black jack case (all, none, or {names})") from None
    return tuple(dict.fromkeys(cases))


def _cases(text: str) -> tuple[HyperCase, ...]:
    try:
        return parse_cases(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _workers(text: str) -> int:
    """A number of processes; 0 means one per core."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: a whole number >= 0 (0: one per core)")
    return value or os.cpu_count() or 1


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: a whole number >= 1")
    return value


def engine_compiled() -> bool:
    """True when the round machine runs compiled by mypyc (``TABLE_RUNTIME_COMPILE=1 pip install .``)."""
    return not str(round_module.__file__).endswith(".py")


def run(args: argparse.Namespace) -> int:
    rules = profile(args.profile)
    remember_cached(rules)  # solved at the first start only (strategy_cache.py)
    with tqdm(total=args.rounds, unit="round", unit_scale=True, disable=not sys.stderr.isatty(),
              desc=f"simulate {args.profile}") as bar:
        result = simulate(rules, args.rounds, boxes=args.boxes, seed=args.seed, workers=args.workers,
                          progress=bar.update, hyper_cases=args.hyper)
    document = result.document() | {"compiled": engine_compiled()}
    if args.json:
        print(json.dumps(document, indent=2))
        return 0
    print(f"profile {document['profile']}: {document['rounds']} rounds on {document['boxes']} box(es), "
          f"{document['hands']} hands, {document['shoes']} shoes")
    print(f"player return {100 * result.ev:+.3f}% ± {100 * result.stderr:.3f}% per initial bet "
          f"(house edge {-100 * result.ev:.3f}%), net {document['net_units']:+g} units")
    print(f"player blackjacks {document['blackjack_rate']:.4f} per box per round")
    if rules.surrender:
        print(f"surrenders {document['surrenders']} ({document['surrenders'] / max(result.tally.initial_bets, 1):.4f} "
              "per box per round, 55-4 1°)")
    if "hyper" in document:
        hyper = document["hyper"]
        print(f"hyper black jack (55-4 6°): one unit on {', '.join(hyper['cases_bet'])} each round, "
              f"net {hyper['net_units']:+g} units; the bank's final result and each case's return:")
        for case in HyperCase:
            name = case.value
            print(f"  {case.label:<10} {100 * hyper['bank_final_result'][name]:7.3f}%  "
                  f"EV {100 * hyper['ev'][name]:+8.3f}% ± {100 * hyper['stderr'][name]:.3f}%")
    engine = "compiled engine" if document["compiled"] else "interpreted engine"
    print(f"{document['rounds_per_second']:,.0f} rounds/s with {args.workers} worker(s), {engine}, seed {args.seed}")
    if document["voided_rounds"]:
        print(f"{document['voided_rounds']} round(s) voided: the shoe ran out of cards")
    return 0
