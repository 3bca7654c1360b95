"""A simulated chip tray read by RFID: its rows laid over a simulated reader's antennas, hundreds of chips in them.

`ReadTray` holds the house's float in rows (``tray.row1`` ...; core/tray.py), one denomination to a row as a dealer
racks them, on any simulated reader that holds chips by zone (`AntennaChips`: the FEIG reader of
simulators/feig_reader.py, whose firmware takes the time ISO 15693 takes: an inventory of a 30-chip row is about
90 ms before its bytes cross the line, so a 300-chip tray at 38400 baud takes over a second; bench/tray_read.py).
The dealer's hands are its methods: `pay` takes chips worth an amount out of the rows, `rack` puts chips back in the
row of their denomination; the faults a tray sees are `pocket` (a chip taken from it) and `drop` (a chip put in it
that is not the house's float: a player's, another table's).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from firmware_bridge.rfid import Tag
from simulators.feig_reader import level_number
from simulators.rfid_chips import ChipIssuer
from table_runtime.core.tray import tray_row

RACK_DENOMINATIONS = (10_000, 2_500, 1_000, 500, 100, 50)  # a black jack table's float, largest first


class ZonedChips(Protocol):
    """What the tray needs of a simulated reader: chips placed, removed and listed by zone."""

    def place(self, where: int | str, *chips: Tag) -> None: ...

    def remove(self, where: int | str, *uids: str) -> list[Tag]: ...

    def chips(self, where: int | str) -> list[Tag]: ...


def take_one(reader: ZonedChips, rows: Iterable[str], denomination_cents: int) -> Tag:
    """A chip taken from the first of `rows` (those of its denomination) that holds one: a chip gone from the tray."""
    for row in rows:
        chips = reader.chips(row)
        if chips:
            return reader.remove(row, chips[0].uid)[0]
    raise ValueError(f"no {denomination_cents} cents chip in the tray")


def rack_antennas(rows: int, *, first: int = 0, mux: bool = True) -> dict[int, str]:
    """Antenna number -> tray row for `rows` rows: multiplexer channels from the `first`-th (level numbers, 11, 12,
    ...) or, without `mux`, reader outputs from `first` + 1."""
    return {(level_number(first + index) if mux else first + index + 1): tray_row(index + 1) for index in range(rows)}


class ReadTray:
    """The float in `rows` rows of `per_row` chips, one denomination to a row (cycling through `denominations`)."""

    def __init__(self, reader: ZonedChips, issuer: ChipIssuer, *, rows: int = 10, per_row: int = 30,
                 denominations: Iterable[int] = RACK_DENOMINATIONS) -> None:
        self.reader = reader
        self.issuer = issuer
        self.rows = tuple(tray_row(number) for number in range(1, rows + 1))
        kinds = tuple(denominations)
        self.row_of: dict[int, list[str]] = {}  # denomination -> its rows
        for index, row in enumerate(self.rows):
            cents = kinds[index % len(kinds)]
            self.row_of.setdefault(cents, []).append(row)
            reader.place(row, *issuer.issue(cents, per_row))

    @property
    def chips(self) -> dict[str, list[Tag]]:
        return {row: self.reader.chips(row) for row in self.rows}

    @property
    def total_cents(self) -> int:
        return sum(chip.denomination_cents or 0 for chips in self.chips.values() for chip in chips)

    def count(self) -> int:
        return sum(len(chips) for chips in self.chips.values())

    def pay(self, cents: int) -> list[Tag]:
        """Chips worth `cents` out of the rows, the largest first (a ValueError if the tray cannot make it)."""
        plan: list[tuple[str, Tag]] = []
        left = cents
        for denomination in sorted(self.row_of, reverse=True):
            for row in self.row_of[denomination]:
                for chip in self.reader.chips(row):
                    if left < denomination:
                        break
                    plan.append((row, chip))
                    left -= denomination
        if left:
            raise ValueError(f"the tray cannot pay {cents} cents ({left} left over)")
        for row, chip in plan:
            self.reader.remove(row, chip.uid)
        return [chip for _, chip in plan]

    def rack(self, chips: Iterable[Tag]) -> None:
        """Chips into the row of their denomination (its least full), or the last row for one the tray has none of."""
        current = self.chips
        for chip in chips:
            rows = self.row_of.get(chip.denomination_cents or 0, [self.rows[-1]])
            row = min(rows, key=lambda name: len(current[name]))
            self.reader.place(row, chip)
            current[row].append(chip)

    def pocket(self, denomination_cents: int) -> Tag:
        """A chip of `denomination_cents` taken from the tray (a theft, a chip gone to the floor)."""
        return take_one(self.reader, self.row_of.get(denomination_cents, ()), denomination_cents)

    def drop(self, chip: Tag, row: str | None = None) -> None:
        """A chip put into the tray by mistake (a player's, another table's)."""
        self.reader.place(row or self.rows[0], chip)

