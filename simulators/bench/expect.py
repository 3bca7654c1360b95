"""Expected against seen: the differences of one `expect` block, in the order the block names them.

Pure: the runner gathers what the table shows (`Seen`) and this module
compares. The report shows the first difference; the others are kept for
the JUnit details.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_runtime.core.significant_events import significant_events


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing that is not as expected: where (``expect[steps[9]].payouts.box1.hand0.original``), both values."""

    where: str
    expected: Any
    seen: Any
    note: str = ""

    def __str__(self) -> str:
        text = f"{self.where}: expected {self.expected!r}, seen {self.seen!r}"
        return f"{text} ({self.note})" if self.note else text


@dataclass(slots=True)
class Seen:
    """What the table showed when an `expect` block was checked."""

    snapshot: dict[str, Any]
    alarms: list[dict[str, Any]]  # every alarm raised during the scenario, in order
    active_alarms: list[dict[str, Any]]
    payouts: dict[str, int]
    journal_ok: bool
    journal_reason: str
    entries: list[dict[str, Any]]  # every journal row: its body plus `seq` and `row` (input, event, alarm...)
    feed_seqs: list[int] | None = None  # events seqs received by the bench's consumer (None: no feed)
    feed_types: list[str] = field(default_factory=list)
    last_seq: int = 0
    display_snapshot: dict[str, Any] | None = None  # what the display served on /api/snapshot (None: no display)
    recall: list[dict[str, Any]] = field(default_factory=list)  # the last rounds recalled from the journal


def payout_key(payout: Mapping[str, Any]) -> str:
    """``box1.hand0.original``, ``box1.behind.hand1.split``, ``box1.insurance``, ``box1.hyper.21``: one stake of the
    round."""
    if payout["kind"] == "insurance":
        return f"{payout['owner']}.insurance"
    if str(payout["kind"]).startswith("hyper."):  # a hyper stake (55-4 6°): box1.hyper.21
        return f"{payout['owner']}.{payout['kind']}"
    return f"{payout['owner']}.hand{payout['hand']}.{payout['kind']}"


def differences(expected: Mapping[str, Any], seen: Seen, where: str) -> list[Difference]:
    """Every difference, key by key in the order of `expected`."""
    out: list[Difference] = []
    snapshot = seen.snapshot
    for key, want in expected.items():
        at = f"{where}.{key}"
        if key in ("phase", "round", "recovered", "held_cards", "allowed"):
            _equal(out, at, want, snapshot[key])
        elif key == "turn":
            turn = snapshot["turn"]
            _equal(out, at, want, None if turn is None else f"box{turn['box']}.hand{turn['hand']}")
        elif key == "hands":
            boxes = {f"box{box['box']}": [hand["cards"] for hand in box["hands"]] for box in snapshot["boxes"]}
            for box, hands in want.items():
                _equal(out, f"{at}.{box}", hands, boxes.get(box, []))
        elif key == "bank":
            _equal(out, at, want, snapshot["bank"]["cards"])
        elif key == "totals":
            _totals(out, at, want, snapshot)
        elif key == "payouts":
            _mapping_exact(out, at, want, seen.payouts)
        elif key == "alarms":
            _alarms_exact(out, at, want, seen.alarms)
        elif key == "active_alarms":
            _alarms_exact(out, at, want, seen.active_alarms)
        elif key == "alarms_include":
            _alarms_include(out, at, want, seen.alarms)
        elif key in ("devices", "zones", "shoe"):
            source = snapshot.get(key, {}) if key != "zones" else snapshot.get("zones", {})
            for name, value in want.items():
                _equal(out, f"{at}.{name}", value, source.get(name))
        elif key == "journal":
            _journal(out, at, want, seen)
        elif key == "feed":
            _feed(out, at, want, seen)
        elif key == "display":
            if seen.display_snapshot is None:
                out.append(Difference(at, dict(want), None, "the scenario ran without the display (display: true)"))
            else:
                for name, value in want.items():
                    _equal(out, f"{at}.{name}", value, seen.display_snapshot.get(name))
        elif key == "recall":
            if "rounds" in want:
                _equal(out, f"{at}.rounds", want["rounds"], [item["round"] for item in seen.recall])
            if "results" in want:
                _equal(out, f"{at}.results", want["results"], [item["result"] for item in seen.recall])
    return out


def _equal(out: list[Difference], where: str, expected: Any, seen: Any) -> None:
    if expected != seen:
        out.append(Difference(where, expected, seen))


def _totals(out: list[Difference], where: str, want: Mapping[str, Any], snapshot: Mapping[str, Any]) -> None:
    boxes = {f"box{box['box']}": [hand["total"] for hand in box["hands"]] for box in snapshot["boxes"]}
    for name, value in want.items():
        if name == "bank":
            _equal(out, f"{where}.bank", value, snapshot["bank"]["total"])
        else:
            _equal(out, f"{where}.{name}", value if isinstance(value, list) else [value], boxes.get(name, []))


def _mapping_exact(out: list[Difference], where: str, want: Mapping[str, Any], seen: Mapping[str, Any]) -> None:
    for name, value in want.items():
        if name not in seen:
            out.append(Difference(f"{where}.{name}", value, None, "no such stake was settled"))
        else:
            _equal(out, f"{where}.{name}", value, seen[name])
    for name, value in seen.items():
        if name not in want:
            out.append(Difference(f"{where}.{name}", None, value, "a stake settled that the scenario did not expect"))


def _wanted(want: Mapping[str, Any] | str) -> dict[str, Any]:
    return {"kind": want} if isinstance(want, str) else dict(want)


def _alarm_matches(want: Mapping[str, Any], alarm: Mapping[str, Any]) -> str | None:
    """None when `alarm` is the expected one; else what differs."""
    if alarm.get("kind") != want["kind"]:
        return f"kind {alarm.get('kind')!r}"
    if "box" in want and alarm.get("box") != want["box"]:
        return f"box {alarm.get('box')!r}"
    amounts = alarm.get("amounts") or {}
    for name, cents in (want.get("amounts") or {}).items():
        if amounts.get(name) != cents:
            return f"amounts.{name} {amounts.get(name)!r}"
    return None


def _brief(alarm: Mapping[str, Any]) -> dict[str, Any]:
    brief: dict[str, Any] = {"kind": alarm.get("kind")}
    if alarm.get("box") is not None:
        brief["box"] = alarm["box"]
    if alarm.get("amounts"):
        brief["amounts"] = dict(alarm["amounts"])
    return brief


def _alarms_exact(out: list[Difference], where: str, want: Sequence[Mapping[str, Any] | str],
                  seen: Sequence[Mapping[str, Any]]) -> None:
    for index, expected in enumerate(map(_wanted, want)):
        if index >= len(seen):
            out.append(Difference(f"{where}[{index}]", dict(expected), None, "this alarm was not raised"))
            return
        problem = _alarm_matches(expected, seen[index])
        if problem is not None:
            out.append(Difference(f"{where}[{index}]", dict(expected), _brief(seen[index]),
                                  f"{problem}: {seen[index].get('message', '')}"))
            return
    if len(seen) > len(want):
        extra = seen[len(want)]
        out.append(Difference(f"{where}[{len(want)}]", None, _brief(extra),
                              f"an alarm the scenario did not expect: {extra.get('message', '')}"))


def _alarms_include(out: list[Difference], where: str, want: Sequence[Mapping[str, Any] | str],
                    seen: Sequence[Mapping[str, Any]]) -> None:
    position = 0
    for index, expected in enumerate(map(_wanted, want)):
        while position < len(seen) and _alarm_matches(expected, seen[position]) is not None:
            position += 1
        if position >= len(seen):
            kinds = [alarm.get("kind") for alarm in seen]
            out.append(Difference(f"{where}[{index}]", dict(expected), None,
                                  f"not raised (in this order); alarms raised: {kinds}"))
            return
        position += 1


def _journal(out: list[Difference], where: str, want: Mapping[str, Any], seen: Seen) -> None:
    if "verify" in want:
        verdict = "ok" if seen.journal_ok else seen.journal_reason
        _equal(out, f"{where}.verify", want["verify"], verdict)
    inputs = [entry.get("type") for entry in seen.entries if entry["row"] == "input"]
    for index, name in enumerate(want.get("inputs", [])):
        if name not in inputs:
            out.append(Difference(f"{where}.inputs[{index}]", name, None,
                                  f"no {name} input journaled; inputs: {sorted(set(map(str, inputs)))}"))
    for index, pattern in enumerate(want.get("contains", [])):
        if not any(_subset(pattern, entry) for entry in seen.entries):
            out.append(Difference(f"{where}.contains[{index}]", pattern, None, "no journal row has these values"))
    if "events" in want:
        _events(out, f"{where}.events", want["events"], seen)


def _events(out: list[Difference], where: str, want: Sequence[str], seen: Seen) -> None:
    """The journal's significant events (docs/events.md) include `want`'s names, in this order."""
    rows = ((int(entry["seq"]), 0.0, str(entry["row"]), {k: v for k, v in entry.items() if k not in ("seq", "row")})
            for entry in seen.entries)
    names = [event.name for event in significant_events(rows)]
    position = 0
    for index, name in enumerate(want):
        while position < len(names) and names[position] != name:
            position += 1
        if position >= len(names):
            out.append(Difference(f"{where}[{index}]", name, None,
                                  f"not among the significant events (in this order): {names}"))
            return
        position += 1


def _subset(pattern: Any, value: Any) -> bool:
    """`value` has what `pattern` names: mappings by key (others allowed), lists item by item."""
    if isinstance(pattern, Mapping):
        return isinstance(value, Mapping) and all(k in value and _subset(v, value[k]) for k, v in pattern.items())
    if isinstance(pattern, list) and isinstance(value, list):
        return len(pattern) == len(value) and all(_subset(p, v) for p, v in zip(pattern, value, strict=True))
    return bool(pattern == value)


def _feed(out: list[Difference], where: str, want: Mapping[str, Any], seen: Seen) -> None:
    if seen.feed_seqs is None:
        out.append(Difference(where, dict(want), None, "the scenario ran without the feed (set feed: true)"))
        return
    if want.get("every_seq"):
        expected = list(range(1, seen.last_seq + 1))
        received = seen.feed_seqs
        if received != expected:
            first = next((i for i, (a, b) in enumerate(zip(expected, received, strict=False)) if a != b),
                         min(len(expected), len(received)))
            out.append(Difference(
                f"{where}.every_seq", expected[first] if first < len(expected) else None,
                received[first] if first < len(received) else None,
                f"journal seqs 1..{seen.last_seq} in order; received {len(received)} message(s), "
                f"first difference at position {first}"))
    for index, name in enumerate(want.get("types", [])):
        if name not in seen.feed_types:
            out.append(Difference(f"{where}.types[{index}]", name, None, "no such message on the events topic"))
