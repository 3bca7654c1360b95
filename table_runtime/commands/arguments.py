"""What several sub-commands take alike: a count of 1 or more, a data directory that holds a journal, a registry's
import (the chips', the staff's)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from table_runtime.errors import JournalError
from table_runtime.journal import journal_path


def count_of(things: str) -> Callable[[str], int]:
    """An argparse type: a whole number of `things`, 1 or more."""
    def parse(text: str) -> int:
        value = int(text)
        if value < 1:
            raise argparse.ArgumentTypeError(f"{text}: a number of {things}, 1 or more")
        return value
    return parse


def employee_id(text: str) -> str:
    """An argparse type: a staff registry's employee id (table_runtime/staff/registry.py), e.g. ``E1042``."""
    from table_runtime.staff.registry import check_employee_id  # its hashing libraries only when one is given

    try:
        return check_employee_id(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def existing_journal(data_dir: str | Path) -> Path:
    """The journal of `data_dir`; a `JournalError` when there is none (rather than opening a new, empty one)."""
    path = journal_path(data_dir)
    if not path.is_file():
        raise JournalError(f"{path}: no journal here")
    return path


@contextlib.contextmanager
def removed_if_refused(path: Path, created: bool) -> Iterator[None]:
    """A registry's import: a refused first import leaves no empty registry behind (its file and WAL removed)."""
    try:
        yield
    except BaseException:
        if created:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        raise


def import_line(source: str, encoding: str, added: int, updated: int, count: int, things: str, path: Path, *,
                created: bool) -> str:
    """What an import into a registry says: the file (and how it was read, when not UTF-8), the rows added and
    updated, how many `things` the registry at `path` now holds."""
    read_as = "" if encoding == "utf-8" else f" (read as {encoding}: not UTF-8)"
    return (f"{source}{read_as}: {added} added, {updated} updated; {count} {things} in {path}"
            + (" (created)" if created else ""))
