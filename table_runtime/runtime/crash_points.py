"""Crash points for the tests of ack after commit: the process kills itself (SIGKILL) at a named moment.

Read from the environment variable `TABLE_RUNTIME_CRASH_AT` by the assembly only, which a test sets on
the `table-runtime` process it starts (tests/e2e/test_ack_after_commit.py); a table in service has none.
The value is ``POINT:N``: at the N-th card from the shoe, at ``before-commit`` (decoded, not journaled)
or ``after-commit`` (journaled, not yet acknowledged to the shoe). What each produces: docs/journal.md.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping

from table_runtime.errors import ConfigError

ENVIRONMENT = "TABLE_RUNTIME_CRASH_AT"
POINTS = ("before-commit", "after-commit")


class CrashPoints:
    """Where to die, if anywhere; counts the times each point is reached."""

    def __init__(self, point: str | None = None, at: int = 0) -> None:
        self.point = point
        self.at = at
        self._reached: dict[str, int] = {}

    @classmethod
    def from_environment(cls, environment: Mapping[str, str] = os.environ) -> CrashPoints:
        spec = environment.get(ENVIRONMENT, "")
        if not spec:
            return cls()
        point, _, count = spec.partition(":")
        if point not in POINTS or not count.isdigit() or int(count) < 1:
            raise ConfigError(ENVIRONMENT, f"{spec!r}: use before-commit:N or after-commit:N (N from 1)")
        return cls(point, int(count))

    def reached(self, point: str) -> None:
        if self.point != point:
            return
        self._reached[point] = self._reached.get(point, 0) + 1
        if self._reached[point] == self.at:
            os.kill(os.getpid(), signal.SIGKILL)
