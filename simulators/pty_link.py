"""A simulated device's serial port: a raw pty pair, its slave published at a stable path (like udev's
/dev/serial/by-id names) so a driver opens it by a configured name."""

from __future__ import annotations

import contextlib
import os
import tty
from pathlib import Path


def open_raw_pty(link: Path) -> tuple[int, int]:
    """A pty pair (master, slave) with no echo and no line discipline (bytes are bytes), the master non-blocking,
    and the slave's name published at `link`: the path appears in one step, already complete."""
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    temporary = link.with_name(link.name + ".new")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    os.symlink(os.ttyname(slave), temporary)
    os.replace(temporary, link)
    return master, slave
