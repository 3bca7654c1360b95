"""What the pit page shows, folded from the tables' feed messages: pure, no I/O, no clock read.

One `TableSummary` per table seen on the feed: the retained ``status`` says
whether it is online, the retained ``state`` carries its whole snapshot (phase,
round, limits, boxes, shoe, devices, open alarms), and each ``rounds`` record
adds the round's stakes and results to the shift's figures:

- drop: the stakes the players put on the table this shift (every payout's ``staked_cents``);
- win: what the table kept (the players' results, negated: ``-sum(net_cents)``);
- hold: win / drop, in basis points (None before the first stake).

A round is counted once, by (table, round number, journal seq): the feed may
send a message again after an outage. Open alarms are sorted the way the pit
reads them: the supervisor's kinds (table_runtime.core.commands.SUPERVISOR_ACK_KINDS)
first, the ones not yet acknowledged before the acknowledged, then by table and the oldest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from table_runtime.core.commands import needs_supervisor

TOPICS = ("status", "state", "alarms", "rounds", "events", "head")


def alarm_order(alarm: Mapping[str, Any]) -> tuple[int, int, str, int]:
    """Sort key of an open alarm: supervisor kinds first, unacknowledged first, then by table, the oldest first."""
    supervisor = bool(alarm.get("supervisor", needs_supervisor(str(alarm.get("kind", "")))))
    return (0 if supervisor else 1, 1 if alarm.get("acknowledged") else 0, str(alarm.get("table_id", "")),
            _int(alarm.get("seq")))


def hold_basis_points(win_cents: int, drop_cents: int) -> int | None:
    """Win over drop in basis points (10,000 = 100 %), rounded half away from zero; None without a drop."""
    if drop_cents <= 0:
        return None
    scaled = abs(win_cents) * 10_000 * 2 + drop_cents
    value = scaled // (drop_cents * 2)
    return value if win_cents >= 0 else -value


@dataclass(slots=True)
class TableSummary:
    """One table as the pit sees it: its newest snapshot and status, and its shift figures."""

    table_id: str
    online: bool | None = None  # None until a status message arrives
    status_reason: str | None = None
    snapshot: dict[str, Any] | None = None
    seq: int = 0
    updated_ts: float = 0.0
    drop_cents: int = 0
    win_cents: int = 0
    rounds: int = 0
    counted: set[tuple[int, int]] = field(default_factory=set)

    def alarms(self) -> list[dict[str, Any]]:
        """The snapshot's alarms, each naming its table, in the pit's order."""
        found = (self.snapshot or {}).get("alarms") or []
        named = [{**alarm, "table_id": self.table_id} for alarm in found if isinstance(alarm, Mapping)]
        for alarm in named:
            alarm.setdefault("supervisor", needs_supervisor(str(alarm.get("kind", ""))))
        return sorted(named, key=alarm_order)

    def to_dict(self) -> dict[str, Any]:
        snapshot = self.snapshot or {}
        boxes = [box for box in snapshot.get("boxes") or [] if isinstance(box, Mapping)]
        devices = {str(name): str(status) for name, status in (snapshot.get("devices") or {}).items()}
        shoe = snapshot.get("shoe") or {}
        return {
            "table_id": self.table_id,
            "online": self.online,
            "status_reason": self.status_reason,
            "phase": snapshot.get("phase"),
            "round": snapshot.get("round"),
            "profile": snapshot.get("profile"),
            "limits": snapshot.get("limits"),
            "boxes_in_play": sum(1 for box in boxes if _in_play(box)),
            "boxes": len(boxes),
            "shoe": {key: shoe.get(key) for key in ("shoe_id", "cards_dealt", "cards_left", "cut_card_reached",
                                                    "online")} if shoe else None,
            "devices": devices,
            "devices_online": sum(1 for status in devices.values() if status == "online"),
            "alarms": self.alarms(),
            "drop_cents": self.drop_cents,
            "win_cents": self.win_cents,
            "hold_bp": hold_basis_points(self.win_cents, self.drop_cents),
            "rounds_counted": self.rounds,
            "seq": self.seq,
            "updated_ts": self.updated_ts,
        }


def _in_play(box: Mapping[str, Any]) -> bool:
    return _int(box.get("seated_cents")) > 0 or bool(box.get("hands"))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class PitOverview:
    """The floor folded for the pit: `apply` each feed message, read `overview()` or `snapshot(table)`."""

    def __init__(self, *, shift_start: float = 0.0) -> None:
        self.shift_start = shift_start  # rounds journaled before it belong to an earlier shift
        self._tables: dict[str, TableSummary] = {}

    @property
    def table_ids(self) -> list[str]:
        return sorted(self._tables)

    def apply(self, topic_name: str, payload: Mapping[str, Any]) -> str | None:
        """Fold one feed message; returns the table it changed, None when it changed nothing."""
        table_id = payload.get("table_id")
        if not isinstance(table_id, str) or not table_id or topic_name not in TOPICS:
            return None
        table = self._tables.setdefault(table_id, TableSummary(table_id))
        ts = payload.get("ts")
        if isinstance(ts, (int, float)) and not isinstance(ts, bool):
            table.updated_ts = max(table.updated_ts, float(ts))
        table.seq = max(table.seq, _int(payload.get("seq")))
        if topic_name == "status":
            table.online = payload.get("status") == "online"
            reason = payload.get("reason")
            table.status_reason = reason if isinstance(reason, str) else None
        elif topic_name == "state":
            snapshot = payload.get("snapshot")
            if not isinstance(snapshot, Mapping):
                return None
            if table.snapshot is not None and _int(snapshot.get("seq")) < _int(table.snapshot.get("seq")):
                return None  # an older retained state, delivered late
            table.snapshot = dict(snapshot)
        elif topic_name == "rounds":
            return table_id if self._count_round(table, payload) else None
        else:
            return None  # events, alarms and head add nothing the state does not carry
        return table_id

    def _count_round(self, table: TableSummary, payload: Mapping[str, Any]) -> bool:
        record = payload.get("round")
        if not isinstance(record, Mapping):
            return False
        ts = payload.get("ts")
        if isinstance(ts, (int, float)) and float(ts) < self.shift_start:
            return False
        key = (_int(record.get("round")), _int(payload.get("seq")))
        if key in table.counted:
            return False
        table.counted.add(key)
        table.rounds += 1
        if record.get("result") == "voided":
            return True  # a voided round's stakes went back to the players
        payouts: Iterable[Any] = record.get("payouts") or []
        for payout in payouts:
            if isinstance(payout, Mapping):
                table.drop_cents += _int(payout.get("staked_cents"))
                table.win_cents -= _int(payout.get("net_cents"))
        return True

    def snapshot(self, table_id: str) -> dict[str, Any] | None:
        """The newest snapshot of one table (what its read-only view draws), None if none came yet."""
        table = self._tables.get(table_id)
        return None if table is None or table.snapshot is None else dict(table.snapshot)

    def overview(self) -> dict[str, Any]:
        """Every table, the pit's open alarms in order, and the pit's shift figures."""
        tables = [self._tables[table_id].to_dict() for table_id in sorted(self._tables)]
        drop = sum(table["drop_cents"] for table in tables)
        win = sum(table["win_cents"] for table in tables)
        alarms = sorted((alarm for table in tables for alarm in table["alarms"]), key=alarm_order)
        return {
            "tables": tables,
            "alarms": alarms,
            "pit": {"tables": len(tables), "online": sum(1 for table in tables if table["online"]),
                    "drop_cents": drop, "win_cents": win, "hold_bp": hold_basis_points(win, drop)},
            "shift_start": self.shift_start,
        }
