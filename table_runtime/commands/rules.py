"""`table-runtime rules`: print the rule options of a profile or a TOML file."""

from __future__ import annotations

import argparse
import json
from typing import Any

from table_runtime.game.rules import PROFILES, load_rules, profile


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("rules", help="print the rule options of a profile or a TOML file")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--profile", default="fr-casino", choices=sorted(PROFILES))
    source.add_argument("--file", help="a TOML file with a [rules] table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    options = load_rules(args.file) if args.file else profile(args.profile)
    print(json.dumps(options.to_dict(), indent=2))
    return 0
