"""The installed program checked against its signed manifest: before the table deals, every N hours, on demand.

A lab and the regulators ask that every critical program file be authenticated before play starts, at intervals
while the table runs and on demand with a verifier's seed, a failure stopping play, every result kept through a
power loss (Ohio OAC 3772-9-12; Ontario AGCO, Registrar's Standards for Gaming §22; docs/verification.md). Each
check is `verify_installation` (release/verification.py) in a process of its own (`spawn`): hashing the whole
installation never holds the table's interpreter, and the loop only waits for the answer on a pipe.

Each result is one `verification` row (docs/journal.md), published on the feed like every row. A program not as
released also raises a `program_not_as_released` alarm in the same transaction, naming the first file and how
many were changed, missing or added: a halting kind (core/alarm_ledger.py), so play stops until the supervisor
clears it, and a restart is still stopped. While one is open a later check that finds the same raises no second
one (its row says what it found).

Who asks: the start (`TableApp.run`, before the devices are opened), the schedule (`run`: every `check_hours`
after the last check, on the injected monotonic clock and sleep), the supervisor (the display, with the PIN) and
the floor (a signed request on the feed, feed/verify_server.py). One check at a time; a request that comes while
one runs waits its turn.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import sys
import time
from collections.abc import Awaitable, Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.release.verification import ProgramCheck, verify_installation
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.process_pipe import received, start_off_the_loop
from table_runtime.version import installed_version

log = logging.getLogger(__name__)

RULE: Final = citations.PROGRAM_VERIFICATION
VERIFIED_TYPE: Final = "ProgramVerified"
ASKERS: Final = ("start", "schedule", "supervisor", "floor")
Checker = Callable[[Path, Path, "bytes | None"], Awaitable[ProgramCheck]]


class ProgramWatch:
    """Owns the checks of one table's installation (`prefix`) with the release's public key: their schedule, their
    process, their rows and the halt they raise."""

    def __init__(self, controller: TableController, *, public_key: Path, prefix: Path | None = None,
                 check_hours: float | None = None, monotonic: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, checker: Checker | None = None) -> None:
        self.controller = controller
        self.public_key = public_key
        self.prefix = Path(sys.prefix) if prefix is None else prefix
        self.every_s = None if check_hours is None else check_hours * 3600.0
        self._monotonic = monotonic
        self._sleep = sleep
        self._checker = checker or in_a_process
        self._turn = asyncio.Lock()
        self.next_due: float | None = None  # on the monotonic clock: when the schedule checks again
        self.last: ProgramCheck | None = None

    async def verify(self, seed: bytes | None = None, *, by: str,
                     request: dict[str, Any] | None = None) -> dict[str, Any]:
        """One check, journaled (and its alarm, if the program is not as released): the `verification` row's body
        and its `seq` (None while the journal cannot be written). `by`: one of ASKERS; `request`: what the asker
        adds to the row (the floor's request id)."""
        if by not in ASKERS:
            raise ValueError(f"{by!r} is not one of {', '.join(ASKERS)}")
        async with self._turn:
            started = self._monotonic()
            try:
                result = await self._checker(self.prefix, self.public_key, seed)
            except (OSError, EOFError, multiprocessing.ProcessError) as error:
                result = ProgramCheck(intact=False, seed=seed.hex() if seed else "",
                                      problem=f"the check did not complete: {error}")
            self.last = result
            if self.every_s is not None:
                self.next_due = self._monotonic() + self.every_s
            body: dict[str, Any] = {"type": VERIFIED_TYPE, "by": by, **(request or {}), "version": installed_version(),
                                    "seconds": round(self._monotonic() - started, 3), **result.to_json()}
            controller = self.controller
            seq = await controller.step(controller.program_verified, body, self._alarm(result))
        if result.intact:
            log.info("program verified (%s): %d files as released, manifest sha256 %s", by, result.files,
                     result.manifest_sha256)
        else:
            log.error("program NOT as released (%s): %s", by, "; ".join(result.lines()[:5]))
        return {**body, "seq": seq}

    def _alarm(self, result: ProgramCheck) -> Alarm | None:
        """The halting alarm of a program not as released, unless one is open already."""
        if result.intact or self.controller.alarms.active_of_kind(AlarmKind.PROGRAM_NOT_AS_RELEASED):
            return None
        first = result.first_file or "the manifest"
        how = ("changed" if first in result.changed else "missing" if first in result.missing else
               "added" if first in result.added else "unchecked")
        why = f" ({result.problem})" if result.problem else ""
        return Alarm(kind=AlarmKind.PROGRAM_NOT_AS_RELEASED, rule=RULE,
                     message=f"file {first} {how}{why}: the program is not the release; play is stopped",
                     amounts=(("changed", len(result.changed)), ("missing", len(result.missing)),
                              ("added", len(result.added))))

    async def run(self) -> None:
        """Check again every `check_hours` after the last check (none without `check_hours`), until cancelled."""
        if self.every_s is None:
            return
        if self.next_due is None:
            self.next_due = self._monotonic() + self.every_s
        while True:
            wait = self.next_due - self._monotonic()
            if wait > 0:
                await self._sleep(wait)
                continue
            await self.verify(None, by="schedule")


async def in_a_process(prefix: Path, public_key: Path, seed: bytes | None) -> ProgramCheck:
    """`verify_installation` in a process of its own (`spawn`), its answer waited for on the loop; the process is
    killed if the wait is cancelled."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=False)
    process = context.Process(target=_serve, name="program-check", daemon=True, args=(theirs, prefix, public_key, seed))
    try:
        await start_off_the_loop(process.start)  # fork and exec: not the loop's to wait for
        theirs.close()
        body = await _receive(ours)
        if body is None:
            raise EOFError(f"the check's process ended without an answer (exit {process.exitcode})")
        return ProgramCheck.from_json(body)
    finally:
        ours.close()
        theirs.close()
        if process.pid is not None:
            process.kill()
            await asyncio.to_thread(process.join)


async def _receive(connection: Connection) -> dict[str, Any] | None:
    """The next answer of the check's process (None once it ended)."""
    found: dict[str, Any] | None = await received(connection)
    return found


def _serve(connection: Connection, prefix: Path, public_key: Path, seed: bytes | None) -> None:
    """The check's process: the result as JSON on the pipe."""
    connection.send(verify_installation(prefix, public_key, seed).to_json())
    connection.close()
