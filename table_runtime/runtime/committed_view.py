"""The table as its journal has it, for the readers that cannot wait for a step to be durable.

While a step is journaled in the writer's thread (runtime/journal_writer.py) the core is already ahead of the
journal: its input applied, its rows not yet durable. Nothing of that may be shown. The display's snapshot, the
lamps, the metrics and the status line read a `CommittedView` instead: built from the core when no step is in
flight (when a reader asks, at the latest when the next step starts), so it is always the state the last whole
step left, durable. It is shared and read-only: no reader changes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from table_runtime.core.table_core import TableCore
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.snapshot import table_snapshot


@dataclass(frozen=True, slots=True, kw_only=True)
class CommittedView:
    """What the last durable row left: the display's snapshot and the few facts the lamps and metrics need."""

    snapshot: dict[str, Any]  # the whole snapshot contract of docs/display.md
    turn_box: int | None  # the box whose lamp is lit
    waiting_for_dealer: bool  # the tower's amber
    alarm_kinds: tuple[str, ...]  # the open alarms' kinds, oldest first (the metrics count them)
    round_label: str  # the round as the status line says it ("round 12 playing", "between rounds")


def committed_view(core: TableCore, *, table_id: str, seq: int, recovered: bool,
                   devices: Mapping[str, str]) -> CommittedView:
    """The view of `core`, which must be the journal's (no step in flight), after row `seq`."""
    snapshot = table_snapshot(core.table)
    snapshot["shoe"]["online"] = devices.get("shoe") == "online"
    snapshot.update({
        "schema_version": SCHEMA_VERSION,
        "table_id": table_id,
        "seq": seq,
        "alarms": core.alarms.shown,
        "alarms_hidden": core.alarms.hidden,
        "recovered": recovered,
        "devices": dict(devices),
        **core.snapshot_extra(),
    })
    round_ = core.table.round
    return CommittedView(
        snapshot=snapshot, turn_box=core.turn_box, waiting_for_dealer=core.waiting_for_dealer,
        alarm_kinds=tuple(str(alarm["kind"]) for alarm in core.alarms.active),
        round_label="between rounds" if round_ is None else f"round {round_.number} {round_.phase}")
