"""The chip tray read by RFID: its rows as zones, and when a read of the whole tray is whole.

The tray (« le rack », the float of chips the table received as its advance: arrêté du 14 mai 2007, art. 49) is
read by the same readers as the boxes, one antenna per row or one multiplexer channel per row, each row a zone
named ``tray.row1``, ``tray.row2``, ... in the antenna map. A row holds a few dozen chips: a tray of 300 chips is
read in a second or more (bench/README.md), and chips move while the dealer pays and collects, so one scan of the
tray is not the truth. A read of the tray is **whole** when, over the last `scans` consecutive scans:

* every row of the tray answered, completely (no antenna fault, no truncated inventory, its reader online);
* the chips of every row were the same set of UIDs in each of those scans (no chip moving, no chip missed);
* those scans span at least `quiet_seconds` (a dealer's hand resting over the tray is not a quiet tray).

Only a whole read says what the tray holds; an incomplete one says nothing (the reconciliation,
core/tray_reconciliation.py, never compares an incomplete read). Pure: the caller passes each scan with its time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from table_runtime.errors import ConfigError

TRAY_PREFIX = "tray."
TRAY_ROWS = 16  # rows a tray's antenna map may name (a tray has 8 to 12; two multiplexer levels hold 64 channels)
TRAY_SCANS = 3  # identical complete scans that make a read whole
TRAY_QUIET_SECONDS = 0.0  # extra quiet the scans must span (the identical scans are already some)


def tray_row(number: int) -> str:
    """The zone of the tray's row `number` (1 first): ``tray.row3``."""
    return f"{TRAY_PREFIX}row{number}"


def tray_zones(rows: int = TRAY_ROWS) -> tuple[str, ...]:
    """Every tray row a configuration may map, row 1 first."""
    return tuple(tray_row(number) for number in range(1, rows + 1))


def is_tray_zone(zone: str) -> bool:
    return zone.startswith(TRAY_PREFIX)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayScan:
    """One scan of the tray's rows: per row the UIDs read, and the rows whose reading was not complete."""

    at: float
    rows: Mapping[str, frozenset[str]]
    incomplete: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayRead:
    """A whole read of the tray: per row the UIDs on it, and the time of the last scan that made it whole."""

    at: float
    rows: Mapping[str, frozenset[str]]

    @property
    def uids(self) -> frozenset[str]:
        return frozenset().union(*self.rows.values())


@dataclass(slots=True)
class TrayReadJudge:
    """Judges each scan of the tray's `rows`: the whole read it completes, if any (`observe`).

    `scans` identical complete scans, spanning `quiet_seconds`, make a read whole; a scan that is incomplete, that
    misses a row or that reads another set starts the count again. `unread()` (a reader offline) does too.
    """

    rows: tuple[str, ...]
    scans: int = TRAY_SCANS
    quiet_seconds: float = TRAY_QUIET_SECONDS
    _same: int = 0
    _since: float = 0.0
    _last: dict[str, frozenset[str]] | None = None
    _pending: dict[str, frozenset[str]] = field(default_factory=dict)  # rows read in the scan being assembled

    def __post_init__(self) -> None:
        if not self.rows:
            raise ConfigError("tray", "a tray has at least one row")
        if self.scans < 1:
            raise ConfigError("tray.scans", "a whole read takes at least one scan")
        if self.quiet_seconds < 0:
            raise ConfigError("tray.quiet_seconds", "a number of seconds, 0 or more")

    def unread(self) -> None:
        """The tray is not read any more (its reader went offline): no read is whole until it is read again."""
        self._same = 0
        self._last = None
        self._pending = {}

    def observe(self, scan: TrayScan) -> TrayRead | None:
        """One scan; the whole read it completes (every row answered, the same set `scans` times), else None.

        A reader may report the rows of one scan in several events (two readers, one per half of the tray): rows
        read are gathered until every row has answered once, then judged as one scan of the tray."""
        if scan.incomplete & set(self.rows):
            self.unread()
            return None
        for row in self.rows:
            if row in scan.rows:
                if row in self._pending:  # a row read twice before the others answered: a new scan of it
                    self._pending = {}
                self._pending[row] = scan.rows[row]
        if len(self._pending) < len(self.rows):
            return None
        read, self._pending = self._pending, {}
        if read == self._last:
            self._same += 1
        else:
            self._last, self._same, self._since = read, 1, scan.at
        if self._same >= self.scans and scan.at - self._since >= self.quiet_seconds:
            return TrayRead(at=scan.at, rows=dict(read))
        return None


def tray_scan(at: float, readings: Iterable[tuple[str, Iterable[str], bool]]) -> TrayScan:
    """A `TrayScan` from (zone, UIDs, complete) readings of one reader event, tray rows only."""
    rows: dict[str, frozenset[str]] = {}
    incomplete: set[str] = set()
    for zone, uids, complete in readings:
        if not is_tray_zone(zone):
            continue
        rows[zone] = frozenset(uids)
        if not complete:
            incomplete.add(zone)
    return TrayScan(at=at, rows=rows, incomplete=frozenset(incomplete))
