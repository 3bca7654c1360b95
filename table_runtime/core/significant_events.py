"""The table's significant events: fixed codes a gaming lab and a casino's IT read, projected from the journal.

Nothing here decides again what the table did: each event is a row the table journaled when it happened (a
`status` row: started, stopping, a device online or offline, the clock; a `terms` row: the rules, limits or
zones, and who changed them when the start was told; an `alarm` row: a device's fault, the shoe's door, the
journal; a `meters` row: a RAM clear, in the old journal and the new), read in journal order by one pure
projection (`SignificantEvents.take`), the same for `table-runtime events` on the table and `table-floor query
events` over the rows the floor stores. A power loss is the one event read from what is missing: a ``Started``
row whose previous run journaled no ``Stopping``. The codes and what each means are docs/events.md; a code is never
reused or renumbered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from table_runtime.core.row_kinds import RowKind

# name -> fixed code (docs/events.md). Never renumber; a new event takes a new code.
CODES: Final[Mapping[str, int]] = {
    "table_started": 100,
    "table_stopped": 101,
    "power_loss": 102,
    "new_journal": 103,
    "round_resumed": 104,
    "journal_cleared": 105,
    "journal_closed": 106,
    "software_changed": 110,
    "software_installed": 111,
    "device_lost": 200,
    "device_back": 201,
    "device_fault": 202,
    "shoe_door_opened": 210,
    "terms_changed": 300,
    "registry_loaded": 301,
    "clock_unsynchronised": 400,
    "clock_synchronised": 401,
    "clock_stepped": 402,
    "journal_unwritable": 500,
    "journal_writable": 501,
    "journal_broken": 502,
    "program_verified": 600,
    "program_not_as_released": 601,
}

# The rows a projection reads (the others never make an event): for a reader that filters in its query.
KINDS: Final = (RowKind.STATUS, RowKind.TERMS, RowKind.ALARM, RowKind.VERIFICATION, RowKind.METERS)

# Alarm kinds that are a device's fault (its communication lost and back is its `DeviceStatus` rows).
DEVICE_FAULTS: Final = frozenset({"shoe_jam", "shoe_gate_locked", "missed_cards", "shoe_count_mismatch",
                                  "antenna_fault", "reader_offline", "card_reader_offline", "player_card_unreadable"})

# Status types that are one event each, as they are.
_STATUS_EVENTS: Final[Mapping[str, str]] = {
    "RegistryLoaded": "registry_loaded",
    "ClockUnsynchronised": "clock_unsynchronised",
    "ClockSynchronised": "clock_synchronised",
    "ClockStepped": "clock_stepped",
    "JournalWritable": "journal_writable",
    "SoftwareUpdated": "software_installed",
}
_ALARM_EVENTS: Final[Mapping[str, str]] = {"shoe_door_open": "shoe_door_opened",
                                           "journal_unwritable": "journal_unwritable",
                                           "journal_broken": "journal_broken"}


@dataclass(frozen=True, slots=True)
class SignificantEvent:
    """One event: its code and name, the journal row it was read from, and what the row says of it."""

    code: int
    name: str
    seq: int
    ts: float
    detail: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "seq": self.seq, "ts": self.ts, "detail": self.detail}


def _event(name: str, seq: int, ts: float, **detail: Any) -> SignificantEvent:
    return SignificantEvent(CODES[name], name, seq, ts, {key: value for key, value in detail.items()
                                                        if value is not None})


@dataclass
class SignificantEvents:
    """The projection: `take` each row of one journal in order (rows of other kinds are passed over)."""

    running: bool = False  # a Started with no Stopping after it yet
    version: str | None = None
    terms: dict[str, Any] | None = None
    devices: dict[str, str] = field(default_factory=dict)  # device -> its last status

    def take(self, seq: int, ts: float, kind: str, body: Mapping[str, Any]) -> list[SignificantEvent]:
        """The events row `seq` makes (none for most rows)."""
        return self._events(seq, ts, kind, body)

    def _events(self, seq: int, ts: float, kind: str, body: Mapping[str, Any]) -> list[SignificantEvent]:
        if kind == RowKind.TERMS:
            return self._terms(seq, ts, body)
        if kind == RowKind.ALARM:
            alarm = str(body.get("kind", ""))
            name = _ALARM_EVENTS.get(alarm, "device_fault" if alarm in DEVICE_FAULTS else None)
            if name is None:
                return []
            return [_event(name, seq, ts, alarm=alarm, box=body.get("box"), message=body.get("message"))]
        if kind == RowKind.METERS:  # a RAM clear's rows (core/meters_snapshots.py); the other snapshots: none
            return self._meters(seq, ts, body)
        if kind == RowKind.VERIFICATION:  # each authentication of the program (runtime/program_watch.py)
            files = [*body.get("changed", ()), *body.get("missing", ()), *body.get("added", ())]
            name = "program_verified" if body.get("intact") else "program_not_as_released"
            return [_event(name, seq, ts, by=body.get("by"), manifest_sha256=body.get("manifest_sha256"),
                           seed=body.get("seed"), hmac_sha256=body.get("hmac_sha256"), files=len(files),
                           file=files[0] if files else None)]
        if kind != RowKind.STATUS:
            return []
        type_ = str(body.get("type", ""))
        if type_ in ("Started", "Recovered"):  # a start; Recovered: one that found a round in play
            return self._started(seq, ts, body)
        if type_ == "Stopping":
            self.running = False
            return [_event("table_stopped", seq, ts, reason=body.get("reason"))]
        if type_ == "DeviceStatus":
            device, status = str(body.get("device", "")), str(body.get("status", ""))
            before, self.devices[device] = self.devices.get(device), status
            if status == "offline" and before != "offline":
                return [_event("device_lost", seq, ts, device=device)]
            if status == "online" and before == "offline":
                return [_event("device_back", seq, ts, device=device)]
            return []
        name = _STATUS_EVENTS.get(type_)
        if name is None:
            return []
        detail = {key: value for key, value in body.items() if key not in ("type", "schema_version", "table_id")}
        return [_event(name, seq, ts, **detail)]

    def _started(self, seq: int, ts: float, body: Mapping[str, Any]) -> list[SignificantEvent]:
        events = []
        if self.running:  # the run before ended without its Stopping row
            events.append(_event("power_loss", seq, ts))
        version = body.get("version")
        events.append(_event("table_started", seq, ts, version=version, profile=body.get("profile")))
        if body.get("type") == "Recovered":
            events.append(_event("round_resumed", seq, ts, round=body.get("round"), phase=body.get("phase")))
        if self.version is not None and version is not None and version != self.version:
            events.append(_event("software_changed", seq, ts, version_before=self.version, version=version))
        if version is not None:
            self.version = str(version)
        self.running = True
        self.devices.clear()  # a start reports every device again
        return events

    def _terms(self, seq: int, ts: float, body: Mapping[str, Any]) -> list[SignificantEvent]:
        terms = {key: value for key, value in body.items() if key not in ("type", "schema_version", "by")}
        before, self.terms = self.terms, terms
        by = body.get("by") or "unknown"  # who changed the configuration (`run --changed-by`), if the start was told
        if before is None:
            return [_event("new_journal", seq, ts, table_id=terms.get("table_id"), by=body.get("by"))]
        changed = sorted(key for key in set(before) | set(terms) if before.get(key) != terms.get(key))
        return [_event("terms_changed", seq, ts, changed=changed, before={key: before.get(key) for key in changed},
                       after={key: terms.get(key) for key in changed}, by=by)] if changed else []

    def _meters(self, seq: int, ts: float, body: Mapping[str, Any]) -> list[SignificantEvent]:
        reason = body.get("reason")
        if reason not in ("journal_cleared", "journal_closed"):
            return []
        found = body.get("meters")
        meters: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        return [_event(str(reason), seq, ts, by=body.get("employee"), previous_journal=body.get("previous_journal"),
                       previous_head=body.get("previous_head"), next_file=body.get("next_file"),
                       handle_cents=meters.get("handle_cents"), win_cents=meters.get("win_cents"),
                       drop_cents=meters.get("drop_cents"), rounds=meters.get("rounds"))]


def significant_events(rows: Iterable[tuple[int, float, str, Mapping[str, Any]]]) -> list[SignificantEvent]:
    """Every significant event of one journal's rows (seq, ts, kind, body), in order."""
    projection = SignificantEvents()
    return [event for seq, ts, kind, body in rows for event in projection.take(seq, ts, kind, body)]
