"""The alarms of one journaled step: each a new `alarm` row, or one more in the count of an open alarm.

A kind that comes in storms (game/alarm_kinds.py AGGREGATED_KINDS) has at most
one open alarm per box (runtime/alarms.py): an alarm of that kind and box while
one is open, or raised earlier in the same step, adds one to its `count` and
replaces its message and amounts. An open alarm updated in a step gets one
`alarm_updated` row (`AlarmUpdated`: id, kind, box, count, message, amounts),
whatever the number of alarms it counted, so a scan of ten thousand junk tags
journals one alarm. The board sees the step only after the commit (`show`).
"""

from __future__ import annotations

from typing import Any

from table_runtime.game.events import Alarm
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.runtime.alarms import AlarmBoard, storm_key

Row = tuple[str, dict[str, Any]]


def alarm_body(alarm: Alarm, seq: int, number: int) -> dict[str, Any]:
    """The journal body of an alarm raised at `seq` in round `number` (0: between rounds)."""
    return {"type": "Alarm", "schema_version": SCHEMA_VERSION, "id": seq, "seq": seq, "kind": str(alarm.kind),
            "message": alarm.message, "rule": alarm.rule, "box": alarm.box, "amounts": dict(alarm.amounts),
            "round": number, "acknowledged": False, "count": alarm.count}


class AlarmStep:
    """The alarm rows of one step, written into the step's `rows` in order."""

    def __init__(self, board: AlarmBoard, rows: list[Row]) -> None:
        self.board = board
        self.rows = rows
        self.raised: list[dict[str, Any]] = []  # new alarms of this step (not on the board yet)
        self.updates: dict[int, dict[str, Any]] = {}  # open alarm id -> its AlarmUpdated body
        self._pending: dict[tuple[str, int | None], dict[str, Any]] = {}  # storm key -> new alarm of this step

    def add(self, alarm: Alarm, seq: int, number: int) -> int:
        """Journal `alarm`, the step's last seq being `seq`; returns the last seq after it."""
        key = storm_key(str(alarm.kind), alarm.box)
        if key is not None:
            counting = self.board.counting(str(alarm.kind), alarm.box)
            if counting is not None:
                alarm_id = int(counting["id"])
                update = self.updates.get(alarm_id)
                if update is None or "seq" in update:  # a row already written in this step: a new one
                    count = counting.get("count", 1) if update is None else update["count"]
                    update = self.updates[alarm_id] = {
                        "type": "AlarmUpdated", "schema_version": SCHEMA_VERSION, "id": alarm_id,
                        "kind": counting["kind"], "box": counting["box"], "count": count}
                update.update(count=update["count"] + alarm.count, message=alarm.message, amounts=dict(alarm.amounts))
                return seq
            pending = self._pending.get(key)
            if pending is not None:
                pending.update(count=pending["count"] + alarm.count, message=alarm.message, amounts=dict(alarm.amounts))
                return seq
        body = alarm_body(alarm, seq + 1, number)
        self.raised.append(body)
        if key is not None:
            self._pending[key] = body
        self.rows.append(("alarm", body))
        return seq + 1

    def flush(self, seq: int) -> int:
        """Write the AlarmUpdated rows not written yet (before a round record, and at the end of the step)."""
        for update in self.updates.values():
            if "seq" not in update:
                seq += 1
                update["seq"] = seq
                self.rows.append(("alarm_updated", update))
        return seq

    def as_recorded(self, alarm: dict[str, Any]) -> dict[str, Any]:
        """An alarm of the round as its RoundRecord lists it (with this step's update, and its count if over 1)."""
        record = {key: alarm[key] for key in ("id", "kind", "box", "message", "rule", "amounts")}
        update = self.updates.get(int(alarm["id"]))
        count = alarm.get("count", 1)
        if update is not None:
            record.update(message=update["message"], amounts=update["amounts"])
            count = update["count"]
        if count > 1:
            record["count"] = count
        return record

    def show(self) -> None:
        """After the commit: the new alarms on the board, the open ones updated."""
        for body in self.raised:
            self.board.raised(body)
        for update in self.updates.values():
            self.board.updated(update)
