"""Stable zone contents from flickering RFID scans.

An antenna misses a chip now and then (a stack shadows a tag, a hand passes
over), so one scan is not the truth. The debounce rule, per zone and per chip:

* a chip **joins** a zone once it was read there in `appear_scans` consecutive
  scans of that zone (default 2);
* a chip **leaves** a zone once it was missing from `vanish_scans` consecutive
  *complete* scans of that zone (default 5). A scan from a faulty antenna or a
  truncated report (too many tags) is not complete and counts as no miss;
* a chip that joins another zone leaves its old zone at once: a chip is in
  one place. It joins only once its old zone's last scan did not read it: a chip
  at the edge of a zone read by the next antenna too (crosstalk) stays put.

So a chip missed in up to `vanish_scans - 1` consecutive scans never leaves;
at 10 scans/s a chip put down appears 0.1 to 0.2 s later and one taken away
disappears after 0.5 s. Each change of a zone's stable contents is one
`ZoneChanged` event with what joined, what left, the contents and the total.

Pure: the caller passes each scan and its time; the value of a chip comes from
the `value_of` function it gives (the registry's denomination, 0 for a bad chip).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from firmware_bridge.rfid import Tag
from table_runtime.errors import ConfigError, TableError


class UnknownZoneError(TableError, KeyError):
    """A reading for a zone the tracker was not told about."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DebounceRule:
    appear_scans: int = 2
    vanish_scans: int = 5

    def __post_init__(self) -> None:
        if self.appear_scans < 1 or self.vanish_scans < 1:
            raise ConfigError("chips.debounce", "appear_scans and vanish_scans are at least 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class ZoneChanged:
    """A zone's stable contents changed."""

    zone: str
    at: float
    added: tuple[Tag, ...]
    removed: tuple[Tag, ...]
    chips: tuple[Tag, ...]  # the contents after the change, by UID
    total_cents: int
    previous_cents: int
    updated: tuple[Tag, ...] = ()  # chips already there whose data block was read at last


def tag_value(tag: Tag) -> int:
    """The value the tag itself claims; the table uses the registry's instead."""
    return tag.denomination_cents or 0


@dataclass(slots=True)
class _Zone:
    total_cents: int = 0
    stable: dict[str, Tag] = field(default_factory=dict)
    misses: dict[str, int] = field(default_factory=dict)
    streaks: dict[str, int] = field(default_factory=dict)
    last_seen: frozenset[str] = frozenset()  # the UIDs its last scan read


class ZoneTracker:
    """The stable chips of every zone, updated scan by scan."""

    def __init__(self, zones: Iterable[str], *, value_of: Callable[[Tag], int] = tag_value,
                 rule: DebounceRule | None = None) -> None:
        self._zones = {zone: _Zone() for zone in zones}
        self._where: dict[str, str] = {}  # uid -> zone it is stable in
        self.value_of = value_of
        self.rule = rule or DebounceRule()

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(self._zones)

    def _zone(self, zone: str) -> _Zone:
        try:
            return self._zones[zone]
        except KeyError:
            raise UnknownZoneError(f"unknown zone {zone!r}; known: {sorted(self._zones)}") from None

    def chips(self, zone: str) -> tuple[Tag, ...]:
        stable = self._zone(zone).stable
        return tuple(stable[uid] for uid in sorted(stable))

    def total_cents(self, zone: str) -> int:
        return self._zone(zone).total_cents

    def revalue(self) -> None:
        """Recompute every total after `value_of` changed its mind (a new registry snapshot)."""
        for state in self._zones.values():
            state.total_cents = sum(self.value_of(tag) for tag in state.stable.values())

    def totals(self) -> dict[str, int]:
        return {zone: self.total_cents(zone) for zone in self._zones}

    def unread(self, zones: Iterable[str]) -> None:
        """These zones are not read any more (their reader went offline): their last scan no longer keeps
        a chip from joining another zone."""
        for zone in zones:
            if zone in self._zones:
                self._zones[zone].last_seen = frozenset()

    def zone_of(self, uid: str) -> str | None:
        return self._where.get(uid)

    def observe_scan(self, readings: Mapping[str, Iterable[Tag]], at: float,
                     incomplete: Iterable[str] = ()) -> list[ZoneChanged]:
        """One scan of several zones; `incomplete` names zones whose misses do not count."""
        partial = set(incomplete)
        events: list[ZoneChanged] = []
        for zone, tags in readings.items():
            events += self.observe(zone, tags, at, complete=zone not in partial)
        return events

    def observe(self, zone: str, tags: Iterable[Tag], at: float, *, complete: bool = True) -> list[ZoneChanged]:
        """One scan of one zone: the events it causes (here and in zones chips left)."""
        state = self._zone(zone)
        before = state.total_cents
        seen = {tag.uid: tag for tag in tags}
        added: list[Tag] = []
        updated: list[Tag] = []
        moved_from: dict[str, list[Tag]] = {}
        for uid, tag in seen.items():
            if uid in state.stable:
                state.misses.pop(uid, None)
                old = state.stable[uid]
                if old.denomination_cents is None and tag.denomination_cents is not None:
                    state.stable[uid] = tag
                    state.total_cents += self.value_of(tag) - self.value_of(old)
                    updated.append(tag)
                continue
            streak = state.streaks.get(uid, 0) + 1
            if streak < self.rule.appear_scans:
                state.streaks[uid] = streak
                continue
            old_zone = self._where.get(uid)
            if old_zone is not None and uid in self._zones[old_zone].last_seen:
                state.streaks[uid] = streak  # read by two antennas (crosstalk): it stays where it is until
                continue  # its zone stops reading it
            state.streaks.pop(uid, None)
            if old_zone is not None:
                moved_from.setdefault(old_zone, []).append(self._zones[old_zone].stable[uid])
            state.stable[uid] = tag
            state.total_cents += self.value_of(tag)
            self._where[uid] = zone
            added.append(tag)
        for uid in [uid for uid in state.streaks if uid not in seen]:
            del state.streaks[uid]  # appearances must be consecutive
        state.last_seen = frozenset(seen)
        removed: list[Tag] = []
        if complete:
            for uid in [uid for uid in state.stable if uid not in seen]:
                misses = state.misses.get(uid, 0) + 1
                if misses < self.rule.vanish_scans:
                    state.misses[uid] = misses
                    continue
                state.misses.pop(uid, None)
                gone = state.stable.pop(uid)
                state.total_cents -= self.value_of(gone)
                removed.append(gone)
                del self._where[uid]
        events = [self._moved_away(old_zone, chips, at) for old_zone, chips in sorted(moved_from.items())]
        if added or removed or updated:
            events.append(ZoneChanged(zone=zone, at=at, added=_sorted(added), removed=_sorted(removed),
                                      chips=self.chips(zone), total_cents=self.total_cents(zone),
                                      previous_cents=before, updated=_sorted(updated)))
        return events

    def _moved_away(self, zone: str, chips: list[Tag], at: float) -> ZoneChanged:
        state = self._zones[zone]
        before = state.total_cents
        for tag in chips:
            del state.stable[tag.uid]
            state.misses.pop(tag.uid, None)
            state.total_cents -= self.value_of(tag)
        return ZoneChanged(zone=zone, at=at, added=(), removed=_sorted(chips), chips=self.chips(zone),
                           total_cents=self.total_cents(zone), previous_cents=before)


def _sorted(tags: Iterable[Tag]) -> tuple[Tag, ...]:
    return tuple(sorted(tags, key=lambda tag: tag.uid))
