"""The chip registry file, followed while the table runs.

The casino imports a new export or marks a chip stolen (`table-runtime chips
... set-status UID stolen`) while the table plays: within a few seconds the
table reads the file again (in a worker thread), checks the chips already on
its zones against it (a stolen chip there is an alarm at once, and counts for
nothing), and journals that it did. A file that cannot be read is an alarm and
the table goes on with the registry it had.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import RegisteredChip
from table_runtime.errors import ConfigError
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.journal import JournalUnwritableError
from table_runtime.runtime.controller import TableController

REGISTRY_POLL_S = 2.0
RULE = citations.CHIP_REGISTRY

Stamp = tuple[tuple[int, int] | None, ...]


def stamp_of(path: Path) -> Stamp:
    """What changes when the registry is written: the file and its SQLite WAL (time and size of each)."""
    stamps: list[tuple[int, int] | None] = []
    for part in (path, path.with_name(path.name + "-wal")):
        try:
            status = os.stat(part)
        except OSError:
            stamps.append(None)
        else:
            stamps.append((status.st_mtime_ns, status.st_size))
    return tuple(stamps)


class RegistryFollower:
    """Reads `path` again with `load` whenever it changes; the readers' edge judges the chips on the table by
    the new registry and the zones it judges otherwise go to the core (which raises the alarms)."""

    def __init__(self, path: Path, load: Callable[[], Mapping[str, RegisteredChip]], reporter: ZoneReporter,
                 controller: TableController, *, poll: float = REGISTRY_POLL_S) -> None:
        self.path = path
        self.load = load
        self.reporter = reporter
        self.controller = controller
        self.poll = poll
        self.loads = 0

    async def run(self) -> None:
        seen = stamp_of(self.path)
        while True:
            await asyncio.sleep(self.poll)
            now = stamp_of(self.path)
            if now == seen:
                continue
            seen = now
            await self.reload()

    async def reload(self) -> None:
        controller = self.controller
        try:
            registry = await asyncio.to_thread(self.load)
        except ConfigError as error:
            await controller.step(controller.raise_alarms, [Alarm(
                kind=AlarmKind.REGISTRY_UNREADABLE, rule=RULE,
                message=f"the chip registry changed but cannot be read ({error.message}); "
                        "chips are checked against the registry read before")])
            return
        self.loads += 1
        await controller.step(self._loaded, registry)

    def _loaded(self, registry: Mapping[str, RegisteredChip]) -> None:
        """The zones judged again against the new registry, and its note: one step."""
        controller = self.controller
        with contextlib.suppress(JournalUnwritableError):  # the zones are reported again once the journal is back
            controller.report_zones(self.reporter.use_registry(registry))
        controller.note({"type": "RegistryLoaded", "path": str(self.path), "chips": len(registry)})
