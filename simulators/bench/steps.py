"""The checks of a scenario's steps: one per action (place, press, touch, draw, settle, fault, wait, expect...).

Each takes the step's arguments as the file gives them, the step's dotted key and the table's zones, and
returns the arguments the runner uses, or raises a `ScenarioError` naming the key (``steps[4].place.box9``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulators.bench.model import (
    BUTTONS,
    EXPECT_KEYS,
    FAULTS,
    ROLES,
    SPECIAL_CHIPS,
    STEP_ACTIONS,
    TOUCHES,
    ScenarioError,
    Step,
)
from table_runtime.core.seance import SEANCE_COMMANDS
from table_runtime.core.significant_events import CODES
from table_runtime.errors import CardCodeError
from table_runtime.game.cards import Card
from table_runtime.game.hyper import HyperCase


def whole(value: Any) -> bool:
    """A whole number (not a boolean, which YAML and Python also count as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def parse_cards(raw: Any, key: str) -> list[Card]:
    """Card codes as a list or a space-separated string (``AS KD 9H``)."""
    if isinstance(raw, str):
        raw = raw.split()
    if not isinstance(raw, list):
        raise ScenarioError(key, "cards as a list or a space-separated string of codes (AS KD 9H...)")
    raw = [code for item in raw for code in (item.split() if isinstance(item, str) else [item])]
    parsed = []
    for index, code in enumerate(raw):
        try:
            parsed.append(Card.parse(str(code)))
        except CardCodeError as error:
            raise ScenarioError(f"{key}[{index}]", f"{code!r} is not a card: {error}") from error
    return parsed


def check_step(raw: Any, key: str, zones: tuple[str, ...]) -> Step:
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
        elif whole(amount) and amount > 0 and amount % 100 == 0:
            out[zone] = amount
        elif isinstance(amount, list) and amount and all(whole(a) and a > 0 for a in amount):
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
    if not whole(cents) or cents <= 0:
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
    known = ("command", "role", "card", "reason", "alarm", "ok", "case", "box", "cents", "behind", "player",
             *SEANCE_KEYS)
    unknown = sorted(set(args) - set(known))
    if unknown:
        raise ScenarioError(f"{key}.{unknown[0]}", f"unknown key; known: {', '.join(known)}")
    command = args.get("command")
    if command not in TOUCHES:
        raise ScenarioError(f"{key}.command", f"{command!r}: one of {', '.join(TOUCHES)}")
    role = args.get("role", "dealer")
    if role not in ROLES:
        raise ScenarioError(f"{key}.role", f"{role!r}: one of {', '.join(ROLES)}")
    out: dict[str, Any] = {"command": command, "role": role}
    if command == "MANUAL_CARD":
        out["card"] = parse_cards([args.get("card", "")], f"{key}.card")[0].code
    if command == "ACK_ALARM":
        if not isinstance(args.get("alarm"), str):
            raise ScenarioError(f"{key}.alarm", "the kind of the active alarm(s) to acknowledge")
        out["alarm"] = args["alarm"]
    if "reason" in args:
        out["reason"] = str(args["reason"])
    if command == "HYPER_ASSIGN":  # 55-4 6°: {case: "21", box: 1, cents: 1000, behind: false}
        if str(args.get("case")) not in {case.value for case in HyperCase}:
            raise ScenarioError(f"{key}.case", f"{args.get('case')!r}: one of {', '.join(HyperCase)}")
        for name in ("box", "cents"):
            if not whole(args.get(name)) or args[name] < 0:
                raise ScenarioError(f"{key}.{name}", f"{args.get(name)!r}: a whole number")
        out.update(case=str(args["case"]), box=args["box"], cents=args["cents"], behind=bool(args.get("behind")))
    if command in ("SEAT", "SEAT_CLEAR"):  # who sits where: {command: SEAT, box: 3, player: A}
        if not whole(args.get("box")) or not 1 <= args["box"] <= 7:
            raise ScenarioError(f"{key}.box", "the box, 1 to 7")
        out["box"] = args["box"]
        if command == "SEAT":
            if not isinstance(args.get("player"), (str, int)) or isinstance(args.get("player"), bool):
                raise ScenarioError(f"{key}.player", "the player's label the dealer gives, e.g. A")
            out["player"] = str(args["player"])
    if command in SEANCE_COMMANDS or command == "BUY_IN":  # the séance (docs/accounts.md) and its drop
        out.update(_seance_args(args, key))
    if "ok" in args:
        if not isinstance(args["ok"], bool):
            raise ScenarioError(f"{key}.ok", "true or false: whether the command must be accepted")
        out["ok"] = args["ok"]
    return out


SEANCE_KEYS = ("chips", "source", "number", "tender", "where", "reference", "to")


def _seance_args(args: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A séance command's arguments (the table checks them: a scenario may send a bad one on purpose): a count
    `chips` {denomination in cents: how many}, `source`, a slip's `number`, a tip's `box` and `cents`, orphan chips'
    `cents` and `where`, an identity's `box` or `player` and `reference`, a change's `cents`, `box` and `to`."""
    out: dict[str, Any] = {}
    if "chips" in args:
        chips = args["chips"]
        if not isinstance(chips, Mapping) or not all(whole(number) for number in chips.values()):
            raise ScenarioError(f"{key}.chips", "a count: {denomination in cents: how many chips}")
        out["chips"] = {str(denomination): number for denomination, number in chips.items()}
    for name in ("source", "where", "reference", "tender", "to"):
        if name in args:
            out[name] = str(args[name])
    for name in ("number", "box", "cents"):
        if name in args:
            if not whole(args[name]):
                raise ScenarioError(f"{key}.{name}", f"{args[name]!r}: a whole number")
            out[name] = args[name]
    if "player" in args:
        out["player"] = str(args["player"])
    return out


def _draw(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if whole(args):
        args = {"count": args}
    if not isinstance(args, Mapping) or not whole(args.get("count", 1)) or args.get("count", 1) < 1:
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
        if not whole(cents) or cents % 100:
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
    cards = parse_cards(args.get("cards", []), f"{key}.cards")
    if not cards:
        raise ScenarioError(f"{key}.cards", "a stacked shoe needs at least one card")
    cut_after = args.get("cut_after")
    if cut_after is not None and (not whole(cut_after) or not 0 < cut_after <= len(cards)):
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


def check_expect(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
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
                checked[box] = [[card.code for card in parse_cards(hand, f"{where}[{index}]")]
                                for index, hand in enumerate(box_hands)]
            out[name] = checked
    if "bank" in out:
        out["bank"] = [card.code for card in parse_cards(out["bank"], f"{key}.bank")]
    if "payouts" in out:
        payouts = out["payouts"]
        if not isinstance(payouts, Mapping):
            raise ScenarioError(f"{key}.payouts", "stake -> net cents, e.g. {box1.hand0.original: 1500}")
        for stake, cents in payouts.items():
            if not whole(cents):
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
        bad = sorted(set(journal) - {"verify", "inputs", "contains", "events"})
        if bad:
            raise ScenarioError(f"{key}.journal.{bad[0]}", "unknown key; known: verify, inputs, contains, events")
        events = journal.get("events", [])
        if not isinstance(events, list) or any(name not in CODES for name in events):
            raise ScenarioError(f"{key}.journal.events", f"significant events by name, of: {', '.join(CODES)}")
    if "display" in out and (not isinstance(out["display"], Mapping) or not out["display"]):
        raise ScenarioError(f"{key}.display", "snapshot keys and values the display's /api/snapshot must show")
    if "recall" in out:
        recall = out["recall"]
        if not isinstance(recall, Mapping) or set(recall) - {"last", "rounds", "results"} or not whole(
                recall.get("last", 10)):
            raise ScenarioError(f"{key}.recall", "{last: 10, rounds: [1, 2], results: [settled, voided]}")
    if "feed" in out:
        feed = out["feed"]
        if not isinstance(feed, Mapping) or set(feed) - {"every_seq", "types"}:
            raise ScenarioError(f"{key}.feed", "{every_seq: true, types: [RoundRecord, ...]}")
    return out


def _tray(args: Any, key: str, zones: tuple[str, ...]) -> dict[str, Any]:
    if not any(zone.startswith("tray.") for zone in zones):
        raise ScenarioError(key, "the scenario has no chip tray: give it one, e.g. tray: {rows: 4, per_row: 20}")
    if not isinstance(args, Mapping) or len(args) != 1 or not set(args) <= {"take", "drop"}:
        raise ScenarioError(key, "{take: 2500} (a chip of that denomination taken from the tray) or {drop: 500} (a "
                                 "chip put into it by mistake)")
    ((what, cents),) = args.items()
    if not whole(cents) or cents <= 0:
        raise ScenarioError(f"{key}.{what}", f"{cents!r}: a chip's denomination in cents")
    return {what: cents}


_CHECKERS: dict[str, Any] = {
    "place": _place, "chip": _chip, "remove": _remove, "clear": _clear, "press": _press, "touch": _touch,
    "draw": _draw, "settle": _settle, "fault": _fault, "load_shoe": _load_shoe, "wait": _wait, "expect": check_expect,
    "tray": _tray,
}
