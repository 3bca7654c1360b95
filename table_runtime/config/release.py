"""The `[release]` section: the release's public key the table checks its installed program with, and how often.

    [release]
    public_key_file = "/etc/table-runtime/release.pub"   # the release key's public half (PEM; docs/verification.md)
    check_hours = 8                                       # again every 8 hours while it runs (absent: start only)

No section (or no `public_key_file`): the table does not check its program (a development tree, the demo). With
a key, the installation (this program's virtual environment) is checked against its signed manifest before the
table deals, every `check_hours` while it runs, and on demand (the supervisor's display, the floor's request):
runtime/program_watch.py. A key file that does not load is refused here, naming the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from table_runtime.config.reader import Reader
from table_runtime.errors import TableError
from table_runtime.release.signing import public_key

MAX_CHECK_HOURS: Final = 24.0 * 7  # a check at least once a week while the table runs


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseConfig:
    """The public key the installation is checked with (None: no check) and the hours between two checks (None:
    only at the start and on demand)."""

    public_key: Path | None = None
    check_hours: float | None = None

    @property
    def enabled(self) -> bool:
        return self.public_key is not None


def read_release(reader: Reader, document: dict[str, Any]) -> ReleaseConfig:
    prefix = "release"
    table = reader.table(document, prefix, "", allowed={"public_key_file", "check_hours"})
    key = reader.path(table, "public_key_file", prefix, must_exist=True)
    if key is not None and key.is_file():
        try:
            public_key(key)
        except (TableError, OSError) as error:
            reader.problem("release.public_key_file", str(error))
    hours: float | None = None
    if "check_hours" in table:
        hours = reader.value(table, "check_hours", prefix, float, 0.0)
        if not 0 < hours <= MAX_CHECK_HOURS:
            reader.problem("release.check_hours", f"{hours}: more than 0 and at most {MAX_CHECK_HOURS:.0f} hours")
            hours = None
        if key is None:
            reader.problem("release.check_hours", "without public_key_file there is nothing to check")
    return ReleaseConfig(public_key=key, check_hours=hours)
