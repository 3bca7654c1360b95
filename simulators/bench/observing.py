"""How the bench sees what the runtime has seen: the journal rows, the zone totals, and the bounded wait.

`BenchObserving` is the base of the bench's hands (hands.py, chip_hands.py):
the state `BenchTable` (runner.py) sets, the journal read incrementally, the
cards the runtime heard of from the shoe, and `until`, which waits, bounded,
for an action's effect. `StepFailed` is how a step that cannot be carried out,
or whose effect never arrives, ends.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.dealer_panel import GpioDealerPanel
from firmware_bridge.rfid.messages import Tag
from simulators.bench.devices import DeviceChoice, Operator
from simulators.chip_rack import ReadTray
from simulators.feig_reader import SimulatedFeigReader
from simulators.live_table import ChipTray
from simulators.mosquitto import MosquittoBroker
from simulators.rfid_backend import SimulatedReader
from simulators.rfid_chips import ChipIssuer
from simulators.shoe import SimulatedShoe
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController

WAIT_SECONDS = 10.0  # a simulated device's effect must reach the runtime within this
POLL_SECONDS = 0.01


class StepFailed(Exception):
    """A step could not be carried out, or its effect never reached the runtime."""

    def __init__(self, where: str, message: str, *, expected: str = "the step carried out") -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message
        self.expected = expected


def describe(error: BaseException) -> str:
    """The innermost errors of a crash (TaskGroups wrap them), each with the line that raised it."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"


class BenchObserving:
    """What the bench's hands read; `BenchTable` owns the devices and the runtime they act on."""

    # set by BenchTable.__init__ (runner.py)
    choice: DeviceChoice
    operator: Operator
    zones: tuple[str, ...]
    shoe_sim: SimulatedShoe
    reader_sim: SimulatedReader | SimulatedFeigReader
    issuer: ChipIssuer
    tray: ChipTray
    rack: ReadTray | None  # the chip tray read by the reader, when the scenario has one (`tray:`)
    marked: dict[str, dict[int, list[Tag]]]
    pin_factory: Any
    panel: GpioDealerPanel | None  # the runtime's panel on the mock pins (None with a real one)
    zone_chips: dict[str, list[Tag]]
    refused: set[str]
    drawn: int
    waited_alarms: dict[str, int]
    controller: TableController | None
    app: TableApp | None
    app_task: asyncio.Task[None] | None
    broker: MosquittoBroker | None
    _rows: list[dict[str, Any]]
    _rows_seq: int

    async def _power_loss(self) -> None:
        raise NotImplementedError

    def _broker(self) -> MosquittoBroker:
        if self.broker is None:
            raise StepFailed("feed", "no broker")
        return self.broker

    # ------------------------------------------------------------------ observing

    @property
    def ctl(self) -> TableController:
        assert self.controller is not None, "the runtime is not running"
        return self.controller

    def rows(self) -> list[dict[str, Any]]:
        """Every journal row so far, as its body plus `seq` and `row` (the row's kind), read incrementally."""
        for entry in self.ctl.journal.entries(after_seq=self._rows_seq):
            self._rows.append({**entry.body, "seq": entry.seq, "row": entry.kind})
            self._rows_seq = entry.seq
        return self._rows

    def alarms(self) -> list[dict[str, Any]]:
        return [row for row in self.rows() if row["row"] == "alarm"]

    def shoe_seen(self) -> int:
        """Cards the runtime has heard of from the shoe: read, unreadable, or reported lost."""
        seen = 0
        for row in self.rows():
            if row["row"] == "input" and row.get("type") == "CardDrawn" and row.get("source") == "shoe":
                seen += 1
            elif row["row"] == "alarm":
                if row.get("kind") == AlarmKind.UNREADABLE_CARD:
                    seen += 1
                elif row.get("kind") == AlarmKind.MISSED_CARDS:
                    seen += int((row.get("amounts") or {}).get("cards", 1))
        return seen

    def zone_total(self, zone: str) -> int:
        return self.ctl.core.chips.total(zone)

    def model_total(self, zone: str) -> int:
        return sum(chip.denomination_cents or 0 for chip in self.zone_chips[zone] if chip.uid not in self.refused)

    async def until(self, what: str, condition: Callable[[], bool], where: str, *, real: str | None = None,
                    seconds: float = WAIT_SECONDS) -> None:
        if real is not None and self.choice.real(real):
            seconds = self.choice.operator_timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while True:
            await self.ctl.writer.settled()  # the table as the journal has it, no step half done
            if condition():
                return
            if self.app_task is not None and self.app_task.done():
                error = self.app_task.exception()
                raise StepFailed(where, "the runtime stopped: " + (describe(error) if error else "it returned"))
            if loop.time() > deadline:
                raise StepFailed(where, f"not seen by the runtime within {seconds:.0f} s", expected=what)
            await asyncio.sleep(POLL_SECONDS)
