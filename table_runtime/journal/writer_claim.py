"""The one writer's claim on a journal file: an OS lock on `<journal>.lock` beside it, gone with the process
(kill -9 and power cuts included), and the claimant's pid in it for the message a second runtime gets."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import TextIO

from table_runtime.errors import JournalError
from table_runtime.journal.failures import unwritable


def claim(path: Path) -> TextIO:
    """Lock `path`'s claim for this process, or refuse naming the runtime that holds it; the open handle holds it
    until it is closed."""
    lock_path = path.with_name(path.name + ".lock")
    handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the journal's lifetime
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise JournalError(f"{path} is written by another runtime ({holder}): one journal, one writer") from None
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
    except OSError as error:  # a full card: the claim (the flock) holds, the pid note is only for the message
        if unwritable(lock_path, error) is None:
            handle.close()
            raise
    return handle
