"""What the pit page draws, read off the floor's view (casino_floor.tables_view.FloorView): pure, no I/O.

`FloorPicture` wraps the view the feed is folded into and answers the page's two
questions: the overview (every table; the floor's open alarms in the pit's order;
the shift's handle, drop, win, hold and win / handle per table and for the pit) and one table's newest
snapshot (what its read-only view draws). The shift is the one `now` falls in
(the view's `Shifts`); the clock is passed in.

The pit's alarm order: the floor's own alarms (the feed's integrity: a gap, a
broken chain) and the supervisor's kinds (SUPERVISOR_ACK_KINDS) first, those not
yet acknowledged before the acknowledged, then by table, each table's oldest first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from casino_floor.money import ShiftMoney
from casino_floor.pit.dealers_on_shift import DealersOnShift
from casino_floor.pit.rated_players import RatedPlayers
from casino_floor.ratings import RATINGS_TOPIC
from casino_floor.tables_view import FloorView

# The shift's money on the pit page, as finance names it (casino_floor/money.py).
FIGURES = ("rounds", "handle_cents", "buy_ins", "drop_cents", "win_cents", "hold_pct", "win_to_handle_pct")


def alarm_order(alarm: Mapping[str, Any]) -> tuple[int, int, str, int]:
    """Sort key of an open alarm on the pit page (see the module docstring)."""
    first = bool(alarm.get("supervisor")) or alarm.get("source") == "floor"
    seq = alarm.get("seq", alarm.get("first_seq"))
    return (0 if first else 1, 1 if alarm.get("acknowledged") else 0, str(alarm.get("table_id", "")),
            seq if isinstance(seq, int) and not isinstance(seq, bool) else 0)


def _figures(shifts: list[dict[str, Any]], shift: str) -> dict[str, Any]:
    for figures in shifts:
        if figures.get("shift") == shift:
            return {key: figures.get(key) for key in FIGURES}
    return {key: value for key, value in ShiftMoney().to_dict(shift).items() if key in FIGURES}


def _stake(box: Mapping[str, Any]) -> int:
    stake = box.get("stakes_cents")
    return stake if isinstance(stake, int) and not isinstance(stake, bool) else 0


def table_picture(table: Mapping[str, Any], shift: str) -> dict[str, Any]:
    """One table's card on the pit page."""
    table_id = str(table.get("table_id"))
    devices = {str(name): str(status) for name, status in (table.get("devices") or {}).items()}
    boxes = [box for box in table.get("boxes") or () if isinstance(box, Mapping)]
    status = table.get("status")
    alarms = [{**alarm, "table_id": table_id, "source": "table"} for alarm in table.get("alarms") or ()]
    alarms += [{**alarm, "table_id": table_id, "source": "floor", "supervisor": True}
               for alarm in table.get("floor_alarms") or ()]
    return {
        "table_id": table_id,
        "online": True if status == "online" else False if status == "offline" else None,
        "status_reason": table.get("status_reason"),
        "phase": table.get("phase"),
        "round": table.get("round"),
        "limits": table.get("limits"),
        "boxes_in_play": sum(1 for box in boxes if _stake(box) > 0),
        "boxes": len(boxes),
        "shoe": table.get("shoe"),
        "devices": devices,
        "devices_online": sum(1 for value in devices.values() if value == "online"),
        "alarms": sorted(alarms, key=alarm_order),
        "seq": table.get("seq"),
        **_figures(list(table.get("shifts") or ()), shift),
    }


def pit_picture(overview: Mapping[str, Any], shift: str) -> dict[str, Any]:
    """The whole page from `FloorView.overview()`: the tables, the pit's alarms in order, the shift."""
    tables = [table_picture(table, shift) for table in overview.get("tables") or ()]
    return {
        "tables": tables,
        "alarms": sorted((alarm for table in tables for alarm in table["alarms"]), key=alarm_order),
        "pit": {"tables": len(tables), "online": sum(1 for table in tables if table["online"]),
                **_figures(list(overview.get("shifts") or ()), shift)},
        "shift": shift,
    }


class FloorPicture:
    """The floor's view as the pit page reads it; `apply` folds a feed message and names the table it was about."""

    def __init__(self, view: FloorView | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.view = view if view is not None else FloorView()
        self._clock = clock
        self._tables: set[str] = set()
        self.rated = RatedPlayers()  # the rated players seated at each table (the ``ratings`` channel)
        self.dealers = DealersOnShift()  # the dealer on shift at each table (the ``events`` channel)

    def apply(self, topic_name: str, payload: dict[str, Any]) -> str | None:
        if topic_name == RATINGS_TOPIC:
            return self.rated.apply(payload)
        table_id = payload.get("table_id")
        if not isinstance(table_id, str) or not table_id:
            return None
        self.view.apply(topic_name, payload)
        if topic_name == "events":
            self.dealers.apply(payload)
        self._tables.add(table_id)
        return table_id

    def apply_all(self, topic_name: str, payloads: list[dict[str, Any]]) -> set[str]:
        """Fold the payloads of one message (an ``events`` message's rows, or the message alone) as `apply` folds
        each; the tables they were about. A message of many rows is folded at once, not row by row."""
        if topic_name != "events":
            return {table_id for payload in payloads if (table_id := self.apply(topic_name, payload)) is not None}
        tables = {table_id for payload in payloads
                  if isinstance(table_id := payload.get("table_id"), str) and table_id}
        if tables:
            self.view.apply_rows(payloads)
            self.dealers.apply_rows(payloads)
            self._tables |= tables
        return tables

    def overview(self) -> dict[str, Any]:
        return {**pit_picture(self.view.overview(), self.view.shifts.name_of(self._clock())),
                "rated": self.rated.overview(), "dealers": self.dealers.overview()}

    def snapshot(self, table_id: str) -> dict[str, Any] | None:
        """The table's newest snapshot; None for a table the feed never named (a page does not create one)."""
        if table_id not in self._tables:
            return None
        snapshot = self.view.table(table_id).snapshot
        return dict(snapshot) if snapshot else None
