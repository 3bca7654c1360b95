"""Whether the system clock can be trusted yet, and waiting for it before the table plays.

A Raspberry Pi has no real-time clock (the Pi 5's needs a battery it is sold
without): after a power cut it boots at the time fake-hwclock saved last, or at
1970, until NTP synchronises it. The journal stamps every row with that clock.
So `run` waits, before it opens the journal, up to ``[clock] sync_wait_seconds``
for a synchronised clock (docs/journal.md, "Time"). If the clock is still not
synchronised then, the table plays anyway (a table without a time server must
still open) and the journal says so: a ``ClockUnsynchronised`` status row right
after ``Started``, and a ``ClockSynchronised`` row once NTP has caught up; the
``ts`` of the rows between the two is not to be trusted (their ``seq`` order is).

`system_clock_synchronised` asks the system: systemd-timesyncd's flag file,
then ``timedatectl``; None when neither can tell (a container, a developer's
machine), and then nothing waits.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

log = logging.getLogger("table_runtime.clock")

ClockProbe = Callable[[], bool | None]  # True: synchronised; False: not yet; None: cannot tell
TIMESYNC_FLAG = Path("/run/systemd/timesync/synchronized")  # touched by systemd-timesyncd once synchronised
POLL_SECONDS = 1.0
FOLLOW_SECONDS = 10.0


def system_clock_synchronised(flag: Path = TIMESYNC_FLAG) -> bool | None:
    """Whether NTP has synchronised the system clock (timesyncd's flag, else timedatectl); None: unknown."""
    if flag.exists():
        return True
    try:
        result = subprocess.run(["timedatectl", "show", "--property=NTPSynchronized", "--value"],
                                capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = result.stdout.strip()
    if result.returncode != 0 or answer not in ("yes", "no"):
        return None
    return answer == "yes"


async def wait_for_clock(
    probe: ClockProbe,
    *,
    within: float,
    on_wait: Callable[[float], None] = lambda remaining: None,
    monotonic: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    poll: float = POLL_SECONDS,
) -> bool | None:
    """Poll `probe` until the clock is synchronised or `within` seconds passed; returns the last answer.

    `on_wait(remaining)` is called before each pause (the service extends its start timeout and says
    why in its status line). The probe runs in a thread: timedatectl may take a moment.
    """
    deadline = monotonic() + within
    while True:
        state = await asyncio.to_thread(probe)
        remaining = deadline - monotonic()
        if state is not False or remaining <= 0:
            return state
        on_wait(remaining)
        await sleep(min(poll, remaining))


async def follow_clock(probe: ClockProbe, on_synchronised: Callable[[], None], *,
                       sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                       every: float = FOLLOW_SECONDS) -> None:
    """After a start with an unsynchronised clock: call `on_synchronised()` once NTP catches up, then return."""
    while await asyncio.to_thread(probe) is False:
        await sleep(every)
    on_synchronised()
