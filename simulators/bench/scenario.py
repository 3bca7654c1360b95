"""Scenario files: what the bench does to the table and what it expects to see (docs/bench.md).

A scenario is YAML (or TOML) with a name, the rule text it checks (`cites`),
the rules and limits, a stacked shoe, and `steps`: chips placed and removed,
buttons pressed, display touches, cards drawn, device faults, and `expect`
blocks. Everything is checked here, once, when the file is loaded: a bad file
is a `ScenarioError` naming the key (``steps[4].place.box9``), never a
failure halfway through a run.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from simulators.bench.model import (
    BUTTONS,
    EXPECT_KEYS,
    FAULTS,
    ROLES,
    SPECIAL_CHIPS,
    STEP_ACTIONS,
    TOP_KEYS,
    TOUCHES,
    Scenario,
    ScenarioError,
    Step,
)
from simulators.bench.steps import check_expect, check_step, parse_cards, whole
from table_runtime.config import zone_names
from table_runtime.core.tray import TRAY_ROWS, tray_zones
from table_runtime.errors import ConfigError
from table_runtime.game.rules import RuleOptions, TableLimits, rules_from_mapping
from table_runtime.text_files import InputFileError, read_text

__all__ = [
    "BUTTONS",
    "EXPECT_KEYS",
    "FAULTS",
    "ROLES",
    "SPECIAL_CHIPS",
    "STEP_ACTIONS",
    "TOP_KEYS",
    "TOUCHES",
    "Scenario",
    "ScenarioError",
    "Step",
    "load_scenario",
    "scenario_from_mapping",
    "scenario_paths",
]


def load_scenario(path: str | Path) -> Scenario:
    """A scenario from a `.yaml`/`.yml` or `.toml` file."""
    path = Path(path)
    try:
        text = read_text(path)
    except InputFileError as error:
        raise ScenarioError(str(path), str(error).removeprefix(f"{path}: ")) from error
    try:
        if path.suffix == ".toml":
            document: Any = tomllib.loads(text)
        else:
            document = yaml.safe_load(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(str(path), f"not valid TOML: {error}") from error
    except yaml.YAMLError as error:
        raise ScenarioError(str(path), f"not valid YAML: {_yaml_problem(error)}") from error
    if document is None:
        raise ScenarioError(str(path), "empty: a scenario has a name, cites and steps (docs/bench.md)")
    try:
        return scenario_from_mapping(document, path=path)
    except ScenarioError as error:
        raise ScenarioError(f"{path}: {error.key}", error.message) from error


def _yaml_problem(error: yaml.YAMLError) -> str:
    """One line: where and what (PyYAML's own text spans several lines, quoting the source)."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark is not None else problem


def scenario_paths(targets: Sequence[str | Path]) -> list[Path]:
    """Scenario files named, or found (sorted) in the directories named."""
    found: list[Path] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            found += sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml", ".toml"))
        elif path.exists():
            found.append(path)
        else:
            raise ScenarioError(str(path), "no such scenario file or directory")
        if path.is_dir() and not any(p.parent == path for p in found):
            raise ScenarioError(str(path), "no scenario files (.yaml, .yml, .toml) in this directory")
    return found


def scenario_from_mapping(document: Any, *, path: Path | None = None) -> Scenario:
    if not isinstance(document, Mapping):
        raise ScenarioError(str(path or "scenario"), "a scenario is a mapping of keys (name, cites, steps...)")
    unknown = sorted(set(document) - set(TOP_KEYS))
    if unknown:
        raise ScenarioError(unknown[0], f"unknown key; known: {', '.join(TOP_KEYS)}")
    name = document.get("name", path.stem if path is not None else "")
    if not isinstance(name, str) or not name:
        raise ScenarioError("name", "a non-empty string")
    cites = document.get("cites")
    if isinstance(cites, str):
        cites = [cites]
    if not isinstance(cites, list) or not cites or not all(isinstance(c, str) and c for c in cites):
        raise ScenarioError("cites", "the rule(s) this scenario checks (art. 55-4 of the regulation, docs/rules.md): a "
                                     "string or list")
    rules = _rules(document)
    limits = _limits(document.get("limits", {}))
    shoe = tuple(parse_cards(document.get("shoe", []), "shoe"))
    cut_after = document.get("cut_after")
    if cut_after is not None and (not whole(cut_after) or not 0 < cut_after <= len(shoe)):
        raise ScenarioError("cut_after", f"cards out before the cut card: 1..{len(shoe)} (the stacked shoe's length)")
    zones = zone_names(rules.boxes, hyper=rules.hyper_blackjack)  # the hyper field's cases where it is open
    tray = _tray(document.get("tray"))
    zones += tray_zones(tray[0]) if tray[0] else ()  # the chip tray's rows (core/tray.py)
    steps_raw = document.get("steps", [])
    if not isinstance(steps_raw, list):
        raise ScenarioError("steps", "a list of steps")
    steps = [check_step(raw, f"steps[{index}]", zones) for index, raw in enumerate(steps_raw)]
    if "expect" in document:
        steps.append(Step("expect", check_expect(document["expect"], "expect", zones), "expect"))
    if not steps:
        raise ScenarioError("steps", "a scenario needs at least one step or an expect block")
    timeout = document.get("timeout", 60.0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ScenarioError("timeout", "seconds, a positive number")
    expected_fail = document.get("expected_fail")
    if expected_fail is not None and (not isinstance(expected_fail, str) or not expected_fail):
        raise ScenarioError("expected_fail", "the reason, as a string (the bug it shows)")
    feed = document.get("feed", False)
    if not isinstance(feed, bool):
        raise ScenarioError("feed", "true or false")
    display = document.get("display", False)
    if not isinstance(display, bool):
        raise ScenarioError("display", "true or false")
    miss_rate = document.get("reader_miss_rate", 0.0)
    if isinstance(miss_rate, bool) or not isinstance(miss_rate, (int, float)) or not 0 <= miss_rate < 1:
        raise ScenarioError("reader_miss_rate", "the chance that a chip is missed by one scan, 0 to below 1")
    description = document.get("description", "")
    if not isinstance(description, str):
        raise ScenarioError("description", "a string")
    return Scenario(name=name, path=path, cites=tuple(cites), rules=rules, limits=limits, shoe=shoe,
                    cut_after=cut_after, steps=tuple(steps), description=description, feed=feed,
                    reader_miss_rate=float(miss_rate),
                    display=display or any(step.action == "expect" and "display" in step.args for step in steps),
                    expected_fail=expected_fail, timeout=float(timeout), zones=zones, tray=tray)


def _tray(raw: Any) -> tuple[int, int]:
    """`tray: {rows: 4, per_row: 20}`: the chip tray the reader reads (rows, chips of one denomination a row)."""
    if raw is None:
        return (0, 0)
    if not isinstance(raw, Mapping) or set(raw) - {"rows", "per_row"}:
        raise ScenarioError("tray", "{rows: 4, per_row: 20}: the chip tray's rows and the chips in each")
    rows, per_row = raw.get("rows", 4), raw.get("per_row", 20)
    if not whole(rows) or not 1 <= rows <= TRAY_ROWS:
        raise ScenarioError("tray.rows", f"{rows!r}: 1 to {TRAY_ROWS} rows")
    if not whole(per_row) or not 1 <= per_row <= 100:
        raise ScenarioError("tray.per_row", f"{per_row!r}: 1 to 100 chips a row")
    return (rows, per_row)


def _rules(document: Mapping[str, Any]) -> RuleOptions:
    overrides = document.get("rules", {})
    if not isinstance(overrides, Mapping):
        raise ScenarioError("rules", "a mapping of rule options (docs/rules.md), e.g. {dealer_hits_soft_17: true}")
    profile = document.get("profile", overrides.get("profile", "fr-casino"))
    try:
        return rules_from_mapping({**overrides, "profile": profile})
    except ConfigError as error:
        raise ScenarioError(error.key if error.key.startswith("rules") else f"rules.{error.key}",
                            error.message) from error


def _limits(raw: Any) -> TableLimits:
    if not isinstance(raw, Mapping):
        raise ScenarioError("limits", "a mapping {min_cents: N, max_cents: N}")
    names = {"min_cents": "min_bet_cents", "max_cents": "max_bet_cents", "hyper_min_cents": "hyper_min_bet_cents",
             "hyper_max_cents": "hyper_max_bet_cents"}
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise ScenarioError(f"limits.{unknown[0]}", f"unknown key; known: {', '.join(names)}")
    defaults = TableLimits()
    values = {field: raw.get(key, getattr(defaults, field)) for key, field in names.items()}
    for key, value in zip(names, values.values(), strict=True):
        if not whole(value) or value <= 0:
            raise ScenarioError(f"limits.{key}", f"{value!r}: whole cents, positive")
    try:
        return TableLimits(**values)
    except ConfigError as error:
        raise ScenarioError("limits", error.message) from error
