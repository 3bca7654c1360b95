"""`table-runtime strategy` and `table-runtime house-edge`: the computed basic
strategy of a rule profile and what it returns."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from table_runtime.game.rules import PROFILES, RuleOptions, load_rules, profile
from table_runtime.strategy import PlayTerms, solve
from table_runtime.strategy.final_result import final_result_distribution
from table_runtime.strategy.report import EdgeFigures, chart_lines, house_edge_document, house_edge_lines


def register(subparsers: Any) -> None:
    chart = subparsers.add_parser("strategy", help="print the basic strategy computed for a rule profile")
    _add_source(chart)
    chart.set_defaults(handler=run_strategy)
    edge = subparsers.add_parser("house-edge", help="print the house edge of the computed strategy")
    _add_source(edge)
    edge.add_argument("--json", action="store_true", help="print a JSON document")
    edge.set_defaults(handler=run_house_edge)


def _add_source(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--profile", default="fr-casino", choices=sorted(PROFILES))
    source.add_argument("--rules", metavar="FILE", help="a TOML file with a [rules] table")


def _options(args: argparse.Namespace) -> tuple[str, RuleOptions]:
    if args.rules:
        options = load_rules(args.rules)
        return options.profile if options == profile(options.profile) else args.rules, options
    return args.profile, profile(args.profile)


def run_strategy(args: argparse.Namespace) -> int:
    name, options = _options(args)
    solution = solve(PlayTerms.from_options(options))
    print(f"Basic strategy for {name} (computed by expected value, no hole card)")
    print()
    print("\n".join(chart_lines(solution.strategy)))
    return 0


def run_house_edge(args: argparse.Namespace) -> int:
    name, options = _options(args)
    terms = PlayTerms.from_options(options)
    figures = EdgeFigures(
        name=name,
        solution=solve(terms),
        with_surrender=solve(dataclasses.replace(terms, surrender=True)),
        without_surrender=solve(dataclasses.replace(terms, surrender=False)),
        final_result=final_result_distribution(terms.decks, terms.dealer_hits_soft_17),
        hyper_offered=options.hyper_blackjack,
    )
    if args.json:
        print(json.dumps(house_edge_document(figures), indent=2))
    else:
        print("\n".join(house_edge_lines(figures)))
    return 0
