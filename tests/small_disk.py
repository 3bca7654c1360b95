"""A small real file system for the tests of a full or read-only journal: a tmpfs mounted for one test.

`mount -t tmpfs` needs root (CI runs the tests as root); elsewhere the test is skipped, saying why.
`fill()` takes every free byte with one file (writes fail with ENOSPC, SQLite says SQLITE_FULL), or all but
`leave` bytes (`fill(leave=24 * 1024)`: the journal takes a few more rows, then a step it cannot finish),
`free()` deletes it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SIZE = "4m"


class SmallDisk:
    """One mounted tmpfs at `path`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._filler = path / "filler.bin"

    def fill(self, leave: int = 0) -> None:
        """Take every free byte but `leave` (the journal beside it can no longer grow, or only by that much)."""
        if leave:
            with open(self._filler, "ab", buffering=0) as handle, contextlib.suppress(OSError):
                handle.write(b"\0" * max(0, self.free_bytes - leave))  # a row written meanwhile: fuller, no less
            assert self.free_bytes <= leave
            return
        with open(self._filler, "ab", buffering=0) as handle:
            for chunk in (1 << 16, 1 << 12, 1 << 9, 1):
                with contextlib.suppress(OSError):
                    while True:
                        handle.write(b"\0" * chunk)
        assert os.statvfs(self.path).f_bavail == 0

    @property
    def free_bytes(self) -> int:
        stats = os.statvfs(self.path)
        return stats.f_bavail * stats.f_frsize

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=True, timeout=30)


@contextlib.contextmanager
def small_disk(path: Path, size: str = SIZE) -> Iterator[SmallDisk]:
    """A tmpfs of `size` mounted on `path` for the block; skips the test where mounting is not permitted."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs for the full-disk test needs root (CI runs the tests as root)")
    try:
        _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", "") or str(error)
        pytest.skip(f"cannot mount a tmpfs here ({detail.strip()}): the full-disk test needs mount permission")
    try:
        yield SmallDisk(path)
    finally:
        # lazy: a file a dying child still holds open must not leave the mount behind
        subprocess.run(["umount", "-l", str(path)], capture_output=True, text=True, check=False, timeout=30)
