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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from table_runtime.config import zone_names
from table_runtime.errors import CardCodeError, ConfigError
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.commands import PANEL_BUTTONS, Command, Role
from table_runtime.game.rules import RuleOptions, TableLimits, rules_from_mapping
from table_runtime.text_files import InputFileError, read_text

BUTTONS = tuple(PANEL_BUTTONS)  # the panel's buttons and every command, named in game/commands.py
TOUCHES = tuple(Command)
ROLES = tuple(Role)
SPECIAL_CHIPS: dict[str, AlarmKind] = {  # the special chip -> the alarm it must raise
    "counterfeit": AlarmKind.COUNTERFEIT_CHIP, "stolen": AlarmKind.STOLEN_CHIP, "void": AlarmKind.VOID_CHIP,
    "other-casino": AlarmKind.OTHER_CASINO_CHIP, "relabelled": AlarmKind.TAG_MISMATCH,
}
FAULTS = (
    "shoe_unplug", "shoe_replug", "shoe_corrupt", "shoe_drop", "shoe_duplicate", "shoe_lose",
    "door_open", "door_close", "jam", "clear_jam", "unreadable_card",
    "reader_unplug", "reader_replug", "broker_down", "broker_up", "power_loss",
)  # fmt: skip
EXPECT_KEYS = (
    "phase", "round", "hands", "bank", "totals", "payouts", "alarms", "alarms_include", "active_alarms",
    "journal", "feed", "recovered", "devices", "zones", "held_cards", "allowed", "turn", "shoe", "display", "recall",
)  # fmt: skip
STEP_ACTIONS = ("place", "chip", "remove", "clear", "press", "touch", "draw", "settle", "fault", "load_shoe",
                "wait", "expect")
TOP_KEYS = ("name", "cites", "description", "profile", "rules", "limits", "shoe", "cut_after", "feed",
            "display", "reader_miss_rate", "expected_fail", "timeout", "steps", "expect")


class ScenarioError(ConfigError):
    """A scenario file that cannot be run; `key` names the place (``steps[3].draw``)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the script: `action` with its checked `args`; `key` locates it in the file."""

    action: str
    args: Any
    key: str


@dataclass(frozen=True, slots=True)
class Scenario:
    """A whole scenario, checked."""

    name: str
    path: Path | None
    cites: tuple[str, ...]
    rules: RuleOptions
    limits: TableLimits
    shoe: tuple[Card, ...]
    cut_after: int | None
    steps: tuple[Step, ...]
    description: str = ""
    feed: bool = False
    display: bool = False
    reader_miss_rate: float = 0.0
    expected_fail: str | None = None
    timeout: float = 60.0
    zones: tuple[str, ...] = field(default=())

    @property
    def needs_broker(self) -> bool:
        return self.feed or any(
            (step.action == "fault" and str(step.args["fault"]).startswith("broker"))
            or (step.action == "expect" and "feed" in step.args) for step in self.steps)


# -- loading ------------------------------------------------------------------------------------

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
        raise ScenarioError("cites", "the seed line(s) or TABLE.md section(s) this scenario checks: a string or list")
    rules = _rules(document)
    limits = _limits(document.get("limits", {}))
    shoe = tuple(_cards(document.get("shoe", []), "shoe"))
    cut_after = document.get("cut_after")
    if cut_after is not None and (not _whole(cut_after) or not 0 < cut_after <= len(shoe)):
        raise ScenarioError("cut_after", f"cards out before the cut card: 1..{len(shoe)} (the stacked shoe's length)")
    zones = zone_names(rules.boxes)
    steps_raw = document.get("steps", [])
    if not isinstance(steps_raw, list):
        raise ScenarioError("steps", "a list of steps")
    steps = [_step(raw, f"steps[{index}]", zones) for index, raw in enumerate(steps_raw)]
    if "expect" in document:
        steps.append(Step("expect", _expect(document["expect"], "expect", zones), "expect"))
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
                    expected_fail=expected_fail, timeout=float(timeout), zones=zones)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _rules(document: Mapping[str, Any]) -> RuleOptions:
    overrides = document.get("rules", {})
    if not isinstance(overrides, Mapping):
        raise ScenarioError("rules", "a mapping of rule options (RULES.md), e.g. {dealer_hits_soft_17: true}")
    profile = document.get("profile", overrides.get("profile", "fr-casino"))
    try:
        return rules_from_mapping({**overrides, "profile": profile})
    except ConfigError as error:
        raise ScenarioError(error.key if error.key.startswith("rules") else f"rules.{error.key}",
                            error.message) from error


def _limits(raw: Any) -> TableLimits:
    if not isinstance(raw, Mapping):
        raise ScenarioError("limits", "a mapping {min_cents: N, max_cents: N}")
    unknown = sorted(set(raw) - {"min_cents", "max_cents"})
    if unknown:
        raise ScenarioError(f"limits.{unknown[0]}", "unknown key; known: min_cents, max_cents")
    values = {"min_bet_cents": raw.get("min_cents", 500), "max_bet_cents": raw.get("max_cents", 500_000)}
    for key, value in zip(("min_cents", "max_cents"), values.values(), strict=True):
        if not _whole(value) or value <= 0:
            raise ScenarioError(f"limits.{key}", f"{value!r}: whole cents, positive")
    try:
        return TableLimits(**values)
    except ConfigError as error:
        raise ScenarioError("limits", error.message) from error


def _cards(raw: Any, key: str) -> list[Card]:
    if isinstance(raw, str):
        raw = raw.split()
    if not isinstance(raw, list):
        raise ScenarioError(key, "cards as a list or a space-separated string of codes (AS KD 9H...)")
    raw = [code for item in raw for code in (item.split() if isinstance(item, str) else [item])]
    cards = []
    for index, code in enumerate(raw):
        try:
            cards.append(Card.parse(str(code)))
        except CardCodeError as error:
            raise ScenarioError(f"{key}[{index}]", f"{code!r} is not a card: {error}") from error
    return cards


# -- steps --------------------------------------------------------------------------------------

def _step(raw: Any, key: str, zones: tuple[str, ...]) -> Step:
    if not isinstance(raw, Mapping) or len(raw) != 1:
        raise ScenarioError(key, f"one action per step, as {{action: arguments}}; actions: {', '.join(STEP_ACTIONS)}")
    ((action, args),) = raw.items()
    if action not in STEP_ACTIONS:
        raise ScenarioError(f"{key}.{action}", f"unknown action; known: {', '.join(STEP_ACTIONS)}")
    where = f"{key}.{action}"
    checker = _CHECKERS[action]
    return Step(action, checker(args, where, zones), where)


def _zone(zone: Any, key: str, zones: tuple[str, ...]) -> str:
    if zone not in zones:
        raise ScenarioError(key, f"unknown zone {zone!r}; zones are box1..box7 with .behind and .insurance")
    return str(zone)


def _amounts(args: Any, key: str, zones: tuple[str, ...], *, allow_all: bool) -> dict[str, Any]:
    if not isinstance(args, Mapping) or not args:
        raise ScenarioError(key, "a mapping zone -> cents (or a list of chip denominations in cents)")
    out: dict[str, Any] = {}
    for zone, amount in args.items():
        where = f"{key}.{zone}"
        _zone(zone, where, zones)
        if allow_all and amount == "all":
            out[zone] = "all"
        elif _whole(amount) and amount > 0 and amount % 100 == 0:
            out[zone] = amount
        elif isinstance(amount, list) and amount and all(_whole(a) and a > 0 for a in amount):
            out[zone] = [int(a) for a in amount]
        else:
            raise ScenarioError(where, f"{amount!r}: cents in whole euros (chips start at 100), a list of chip "
                                       f"denominations{', or all' if allow_all else ''}")
    return out


def _place(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    return _amounts(args, key, zones, allow_all=False)


def _remove(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    return _amounts(args, key, zones, allow_all=True)


def _chip(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(args, Mapping):
        raise ScenarioError(key, "{zone: box1, kind: counterfeit, cents: 500}")
    unknown = sorted(set(args) - {"zone", "kind", "cents"})
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", "unknown key; known: zone, kind, cents")
    _zone(args.get("zone"), f"{key}.zone", zones)
    if args.get("kind") not in SPECIAL_CHIPS:
        raise ScenarioError(f"{key}.kind", f"{args.get('kind')!r}: one of {', '.join(SPECIAL_CHIPS)}")
    cents = args.get("cents", 500)
    if not _whole(cents) or cents <= 0:
        raise ScenarioError(f"{key}.cents", "a chip denomination in cents")
    return {"zone": args["zone"], "kind": args["kind"], "cents": cents}


def _clear(args: Any, key: str, zones: tuple[str, ...]) -> list[str]:
    if args == "all":
        return list(zones)
    if isinstance(args, str):
        args = [args]
    if not isinstance(args, list) or not args:
        raise ScenarioError(key, "'all' or a list of zones")
    return [_zone(zone, f"{key}[{index}]", zones) for index, zone in enumerate(args)]


def _press(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(args, str):
        args = {"button": args}
    if not isinstance(args, Mapping) or args.get("button") not in BUTTONS:
        raise ScenarioError(key, f"a panel button: {', '.join(BUTTONS)} (VOID and others are touches)")
    unknown = sorted(set(args) - {"button", "wait"})
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", "unknown key; known: button, wait")
    return {"button": args["button"], "wait": bool(args.get("wait", True))}


def _touch(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(args, str):
        args = {"command": args}
    if not isinstance(args, Mapping):
        raise ScenarioError(key, "a command name or {command: X, role: dealer, ...}")
    unknown = sorted(set(args) - {"command", "role", "card", "reason", "alarm", "ok"})
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", "unknown key; known: command, role, card, reason, alarm, ok")
    command = args.get("command")
    if command not in TOUCHES:
        raise ScenarioError(f"{key}.command", f"{command!r}: one of {', '.join(TOUCHES)}")
    role = args.get("role", "dealer")
    if role not in ROLES:
        raise ScenarioError(f"{key}.role", f"{role!r}: one of {', '.join(ROLES)}")
    out: dict[str, Any] = {"command": command, "role": role}
    if command == "MANUAL_CARD":
        out["card"] = _cards([args.get("card", "")], f"{key}.card")[0].code
    if command == "ACK_ALARM":
        if not isinstance(args.get("alarm"), str):
            raise ScenarioError(f"{key}.alarm", "the kind of the active alarm(s) to acknowledge")
        out["alarm"] = args["alarm"]
    if "reason" in args:
        out["reason"] = str(args["reason"])
    if "ok" in args:
        if not isinstance(args["ok"], bool):
            raise ScenarioError(f"{key}.ok", "true or false: whether the command must be accepted")
        out["ok"] = args["ok"]
    return out


def _draw(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if _whole(args):
        args = {"count": args}
    if not isinstance(args, Mapping) or not _whole(args.get("count", 1)) or args.get("count", 1) < 1:
        raise ScenarioError(key, "a number of cards, or {count: N, wait: false}")
    unknown = sorted(set(args) - {"count", "wait"})
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", "unknown key; known: count, wait")
    return {"count": int(args.get("count", 1)), "wait": bool(args.get("wait", True))}


def _settle(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    args = {} if args is None else args
    if not isinstance(args, Mapping):
        raise ScenarioError(key, "{} or {errors: {box1: -500}, confirm: true, clear: true}")
    unknown = sorted(set(args) - {"errors", "confirm", "clear"})
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", "unknown key; known: errors, confirm, clear")
    errors = args.get("errors", {})
    if not isinstance(errors, Mapping):
        raise ScenarioError(f"{key}.errors", "a mapping zone -> cents paid over (+) or short (-)")
    for zone, cents in errors.items():
        _zone(zone, f"{key}.errors.{zone}", zones)
        if not _whole(cents) or cents % 100:
            raise ScenarioError(f"{key}.errors.{zone}", f"{cents!r}: whole euros in cents, + over or - short")
    confirm = args.get("confirm", True)
    clear = args.get("clear", confirm)
    for name, value in (("confirm", confirm), ("clear", clear)):
        if not isinstance(value, bool):
            raise ScenarioError(f"{key}.{name}", "true or false")
    return {"errors": dict(errors), "confirm": confirm, "clear": clear}


def _fault(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(args, str):
        args = {"fault": args}
    if not isinstance(args, Mapping) or args.get("fault") not in FAULTS:
        name = args.get("fault") if isinstance(args, Mapping) else args
        raise ScenarioError(key, f"{name!r}: one of {', '.join(FAULTS)}")
    unknown = sorted(set(args) - {"fault", "wait"})
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", "unknown key; known: fault, wait")
    return {"fault": args["fault"], "wait": bool(args.get("wait", True))}


def _load_shoe(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(args, Mapping):
        args = {"cards": args}
    unknown = sorted(set(args) - {"cards", "cut_after"})
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", "unknown key; known: cards, cut_after")
    cards = _cards(args.get("cards", []), f"{key}.cards")
    if not cards:
        raise ScenarioError(f"{key}.cards", "a stacked shoe needs at least one card")
    cut_after = args.get("cut_after")
    if cut_after is not None and (not _whole(cut_after) or not 0 < cut_after <= len(cards)):
        raise ScenarioError(f"{key}.cut_after", f"1..{len(cards)}")
    return {"cards": [card.code for card in cards], "cut_after": cut_after}


def _wait(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if args == "cards":
        args = {"cards": True}
    if not isinstance(args, Mapping) or len(args) != 1:
        raise ScenarioError(key, "one of {alarm: KIND}, {device: {shoe: online}}, {cards: true}, {seconds: S}")
    ((what, value),) = args.items()
    if what == "alarm" and isinstance(value, str):
        return {"alarm": value}
    if what == "device" and isinstance(value, Mapping) and len(value) == 1:
        ((device, status),) = value.items()
        if device not in ("shoe", "chips", "broker") or status not in ("online", "offline"):
            raise ScenarioError(f"{key}.device", "{shoe|chips|broker: online|offline}")
        return {"device": (device, status)}
    if what == "cards" and value is True:
        return {"cards": True}
    if what == "seconds" and isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 30:
        return {"seconds": float(value)}
    raise ScenarioError(f"{key}.{what}", "one of {alarm: KIND}, {device: {shoe: online}}, {cards: true}, "
                                         "{seconds: 0..30}")


def _expect(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(args, Mapping) or not args:
        raise ScenarioError(key, f"a mapping of expectations; keys: {', '.join(EXPECT_KEYS)}")
    unknown = sorted(set(args) - set(EXPECT_KEYS))
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", f"unknown expectation; known: {', '.join(EXPECT_KEYS)}")
    out = dict(args)
    for name in ("hands",):
        if name in out:
            hands = out[name]
            if not isinstance(hands, Mapping):
                raise ScenarioError(f"{key}.hands", "box -> list of hands, each a list of cards")
            checked: dict[str, list[list[str]]] = {}
            for box, box_hands in hands.items():
                where = f"{key}.hands.{box}"
                if not (isinstance(box, str) and box.startswith("box") and box in zones):
                    raise ScenarioError(where, "a box name, box1..box7")
                if not isinstance(box_hands, list):
                    raise ScenarioError(where, "a list of hands, each a list (or string) of cards")
                checked[box] = [[card.code for card in _cards(hand, f"{where}[{index}]")]
                                for index, hand in enumerate(box_hands)]
            out[name] = checked
    if "bank" in out:
        out["bank"] = [card.code for card in _cards(out["bank"], f"{key}.bank")]
    if "payouts" in out:
        payouts = out["payouts"]
        if not isinstance(payouts, Mapping):
            raise ScenarioError(f"{key}.payouts", "stake -> net cents, e.g. {box1.hand0.original: 1500}")
        for stake, cents in payouts.items():
            if not _whole(cents):
                raise ScenarioError(f"{key}.payouts.{stake}", f"{cents!r}: net cents (+ paid, - collected, 0 push)")
    for name in ("alarms", "alarms_include", "active_alarms"):
        if name in out:
            alarms = out[name]
            if not isinstance(alarms, list):
                raise ScenarioError(f"{key}.{name}", "a list of {kind: K, box: N, amounts: {...}} (or kind names)")
            normal = []
            for index, alarm in enumerate(alarms):
                alarm = {"kind": alarm} if isinstance(alarm, str) else alarm
                if not isinstance(alarm, Mapping) or not isinstance(alarm.get("kind"), str):
                    raise ScenarioError(f"{key}.{name}[{index}]", "an alarm kind, or {kind: K, box: N, amounts: {}}")
                bad = sorted(set(alarm) - {"kind", "box", "amounts"})
                if bad:
                    raise ScenarioError(f"{key}.{name}[{index}].{bad[0]}", "unknown key; known: kind, box, amounts")
                normal.append(dict(alarm))
            out[name] = normal
    if "journal" in out:
        journal = out["journal"]
        if not isinstance(journal, Mapping):
            raise ScenarioError(f"{key}.journal", "{verify: ok, inputs: [Void], contains: [{kind: .., type: ..}]}")
        bad = sorted(set(journal) - {"verify", "inputs", "contains"})
        if bad:
            raise ScenarioError(f"{key}.journal.{bad[0]}", "unknown key; known: verify, inputs, contains")
    if "display" in out and (not isinstance(out["display"], Mapping) or not out["display"]):
        raise ScenarioError(f"{key}.display", "snapshot keys and values the display's /api/snapshot must show")
    if "recall" in out:
        recall = out["recall"]
        if not isinstance(recall, Mapping) or set(recall) - {"last", "rounds", "results"} or not _whole(
                recall.get("last", 10)):
            raise ScenarioError(f"{key}.recall", "{last: 10, rounds: [1, 2], results: [settled, voided]}")
    if "feed" in out:
        feed = out["feed"]
        if not isinstance(feed, Mapping) or set(feed) - {"every_seq", "types"}:
            raise ScenarioError(f"{key}.feed", "{every_seq: true, types: [RoundRecord, ...]}")
    return out


_CHECKERS: dict[str, Any] = {
    "place": _place, "chip": _chip, "remove": _remove, "clear": _clear, "press": _press, "touch": _touch,
    "draw": _draw, "settle": _settle, "fault": _fault, "load_shoe": _load_shoe, "wait": _wait, "expect": _expect,
}
