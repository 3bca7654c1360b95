"""What several sub-commands take alike: a count of 1 or more, a data directory that holds a journal."""

from __future__ import annotations

import argparse
from collections.abc import Callable
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


def existing_journal(data_dir: str | Path) -> Path:
    """The journal of `data_dir`; a `JournalError` when there is none (rather than opening a new, empty one)."""
    path = journal_path(data_dir)
    if not path.is_file():
        raise JournalError(f"{path}: no journal here")
    return path
