"""The live demo's chips when the table reads its tray by RFID: the tray's rows, the players' chips, the cash desk's.

`DemoChips` lays the tray (« le plateau », the table's advance: arrêté du 14 mai 2007, art. 49) over the rows of the
demo's simulated reader (``tray.row1`` ...; core/tray.py), one denomination to a row, holding the initial advance:
3,000 times the 5.00 € minimum, 15,000.00 € (`TRAY_LAYOUT`). The chips off the reader are the players' (`pocket`:
their stakes come from it and their winnings go back to it) and the cash desk's (`cage`: a fill's chips come from
it, a credit's go back to it). The dealer's hands are its methods, each moving real chips, so the tray the readers
see is the tray the table's events explain: a payout leaves the tray for a box (`pay`), a losing stake is collected
into it (`collect`), a buy-in's chips leave it for the player (`sell`), a confirmed fill comes into it (`fill`), a
credit leaves it (`credit`). `tidy` is the dealer colouring the tray with the cash desk between rounds (a full row's
chips for larger ones, a larger chip for a row's small change), always for the same value, so a row never holds
more chips than its antenna reads (`ROW_FULL`) and a payout always finds its change. `steal` is the fault the
reconciliation is for: a chip taken from the tray. Every chip is issued at the start (the registry knows them all).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, Protocol

from firmware_bridge.rfid import Tag
from simulators.chip_rack import ZonedChips as RackChips
from simulators.chip_rack import take_one
from simulators.rfid_chips import TRAY_DENOMINATIONS, ChipIssuer, ChipTray
from table_runtime.core.tray import tray_row

# The tray's rows, (denomination in cents, chips), the largest first: 15,000.00 € in 10 rows of 35 chips at most,
# room for a round's chips before the dealer colours a row (`ROW_FULL`).
TRAY_LAYOUT: tuple[tuple[int, int], ...] = (
    (100_000, 5), (100_000, 0), (50_000, 12), (10_000, 25), (2_500, 34), (1_000, 30), (500, 30), (500, 30),
    (100, 35), (50, 30))
ROW_FULL = 40  # chips a row holds before the dealer colours it up between rounds
ROW_MOST = 60  # chips a row holds at most, even in a round (the reader reports 64 per antenna)
ROW_LOW = 12  # chips of a denomination under which the dealer colours a larger chip down into it
COLOUR = 20  # chips coloured up at a time
OFF_READER = 1000  # chips of each denomination off the reader, issued at the start


class ZonedChips(RackChips, Protocol):
    """What the chips need of a simulated reader: the tray's (placed, removed and listed by zone), and a zone
    emptied at once."""

    def take_all(self, where: int | str) -> list[Tag]: ...


def layout_cents(layout: Iterable[tuple[int, int]] = TRAY_LAYOUT) -> int:
    return sum(cents * chips for cents, chips in layout)


def tray_rows(layout: tuple[tuple[int, int], ...] = TRAY_LAYOUT) -> tuple[str, ...]:
    """The tray's zones, row 1 first."""
    return tuple(tray_row(number) for number in range(1, len(layout) + 1))


def _value(chip: Tag) -> int:
    return chip.denomination_cents or 0


class DemoChips:
    """Every chip of the demo table: on the reader's zones and tray rows, in the players' hands, at the cash desk."""

    def __init__(self, reader: ZonedChips, issuer: ChipIssuer, *,
                 layout: tuple[tuple[int, int], ...] = TRAY_LAYOUT) -> None:
        self.reader = reader
        self.rows = tray_rows(layout)
        self.row_of: dict[int, list[str]] = {}  # denomination -> its rows
        for row, (cents, chips) in zip(self.rows, layout, strict=True):
            self.row_of.setdefault(cents, []).append(row)
            reader.place(row, *issuer.issue(cents, chips))
        # The chips off the reader, the players' and the cash desk's in one float (a chip is never short of change)
        self.pocket = self.cage = ChipTray(issuer, per_denomination=OFF_READER)

    def move_to(self, reader: ZonedChips) -> None:
        """The tray's rows as they lie, onto another reader (a bench that builds the reader after the registry)."""
        for row, chips in self.tray().items():
            reader.place(row, *self.reader.remove(row, *(chip.uid for chip in chips)))
        self.reader = reader

    # -- what lies where -------------------------------------------------------------------------
    def tray(self) -> dict[str, list[Tag]]:
        return {row: self.reader.chips(row) for row in self.rows}

    @property
    def tray_cents(self) -> int:
        return sum(_value(chip) for chips in self.tray().values() for chip in chips)

    def counted(self) -> dict[str, int]:
        """The tray by denomination (cents -> chips), as a count's `chips` reads."""
        counts = Counter(_value(chip) for chips in self.tray().values() for chip in chips)
        return {str(cents): number for cents, number in sorted(counts.items(), reverse=True)}

    # -- the players' chips ----------------------------------------------------------------------
    def stake(self, zone: str, cents: int) -> list[Tag]:
        """A player's own chips worth `cents` onto `zone`."""
        chips = self.pocket.take(cents)
        self.reader.place(zone, *chips)
        return chips

    def to_player(self, zone: str) -> list[Tag]:
        """Every chip on `zone` back to its player."""
        chips = self.reader.take_all(zone)
        self.pocket.give_back(chips)
        return chips

    # -- the tray --------------------------------------------------------------------------------
    def pay(self, zone: str, cents: int) -> list[Tag]:
        """Chips worth `cents` from the tray onto `zone`."""
        chips = self._out_of_tray(cents)
        self.reader.place(zone, *chips)
        return chips

    def collect(self, zone: str) -> list[Tag]:
        """Every chip on `zone` into the tray (a losing stake)."""
        chips = self.reader.take_all(zone)
        self._rack(chips)
        return chips

    def sell(self, cents: int) -> list[Tag]:
        """A buy-in: chips worth `cents` from the tray to the player."""
        chips = self._out_of_tray(cents)
        self.pocket.give_back(chips)
        return chips

    def fill(self, cents: int) -> dict[str, int]:
        """A complementary advance from the cash desk racked into the tray: its chips by denomination."""
        chips = self.cage.take(cents)
        self._rack(chips)
        return _count(chips)

    def credit(self, cents: int) -> dict[str, int]:
        """Chips worth `cents` from the tray back to the cash desk: their count by denomination."""
        chips = self._out_of_tray(cents)
        self.cage.give_back(chips)
        return _count(chips)

    def steal(self, denomination_cents: int) -> Tag:
        """A chip of `denomination_cents` taken from the tray (the fault the reconciliation catches)."""
        return take_one(self.reader, self.row_of.get(denomination_cents, ()), denomination_cents)

    def tidy(self) -> None:
        """Between rounds, with the cash desk, for the same value: a full row coloured up, a short denomination
        coloured down from a larger chip."""
        for cents, rows in sorted(self.row_of.items()):
            for row in rows:
                if len(self.reader.chips(row)) >= ROW_FULL:
                    self._colour_up(row, cents)
            for _ in range(ROW_LOW):
                if cents == max(self.row_of) or self._held(cents) >= ROW_LOW:
                    break
                self._colour_down(cents)

    # -- the dealer's hands in the tray -----------------------------------------------------------
    def _held(self, cents: int) -> int:
        return sum(len(self.reader.chips(row)) for row in self.row_of.get(cents, ()))

    def _rack(self, chips: Iterable[Tag]) -> None:
        """Chips into the least full row of their denomination; a row at its most coloured up at once."""
        for chip in chips:
            rows = self.row_of.get(_value(chip)) or [self.rows[-1]]
            row = min(rows, key=lambda name: len(self.reader.chips(name)))
            self.reader.place(row, chip)
            if len(self.reader.chips(row)) >= ROW_MOST:
                self._colour_up(row, _value(chip))

    def _colour_up(self, row: str, cents: int) -> None:
        """`COLOUR` chips of `row` to the cash desk for their value in larger chips (none larger than the largest)."""
        if cents == max(self.row_of):
            return
        chips = self.reader.chips(row)
        self.cage.give_back(self.reader.remove(row, *(chip.uid for chip in chips[:COLOUR])))
        self._rack(self.cage.take(cents * COLOUR))  # the cage's largest chips first

    def _out_of_tray(self, cents: int) -> list[Tag]:
        """Chips worth exactly `cents` out of the tray, the largest first; a larger chip coloured down with the
        cash desk when the tray has not the change."""
        for _ in range(4 * len(TRAY_DENOMINATIONS)):
            plan, left = self._plan(cents)
            if not left:
                return [chip for row, uids in plan.items() for chip in self.reader.remove(row, *uids)]
            smaller = [denomination for denomination in self.row_of if denomination <= left]
            self._colour_down(max(smaller) if smaller else min(self.row_of))
        raise ValueError(f"the tray cannot pay {cents} cents (it holds {self.tray_cents})")

    def _plan(self, cents: int) -> tuple[dict[str, list[str]], int]:
        """The chips the largest first, and what they leave unpaid."""
        plan: dict[str, list[str]] = {}
        left = cents
        for denomination in sorted(self.row_of, reverse=True):
            for row in self.row_of[denomination]:
                for chip in self.reader.chips(row):
                    if left < denomination:
                        break
                    plan.setdefault(row, []).append(chip.uid)
                    left -= denomination
        return plan, left

    def _colour_down(self, cents: int) -> None:
        """The smallest chip of the tray larger than `cents` to the cash desk, for its value in smaller chips."""
        for larger in sorted(denomination for denomination in self.row_of if denomination > cents):
            rows = [row for row in self.row_of[larger] if self.reader.chips(row)]
            if rows:
                (chip,) = self.reader.remove(rows[0], self.reader.chips(rows[0])[0].uid)
                self.cage.give_back([chip])
                small = min(COLOUR, larger // cents)
                change = self.cage.take_each(cents, small)
                rest = larger - cents * small
                self._rack([*change, *(self.cage.take(rest) if rest else [])])
                return
        raise ValueError(f"the tray has no chip larger than {cents} cents to change")


def _count(chips: Iterable[Tag]) -> dict[str, int]:
    counts = Counter(_value(chip) for chip in chips)
    return {str(cents): number for cents, number in sorted(counts.items(), reverse=True)}


TRAY_ACTIONS = ("read", "count", "sell", "fill", "credit", "tidy", "steal")


def tray_action(chips: DemoChips, action: str, cents: int = 0) -> dict[str, Any]:
    """One of the dealer's moves at the tray by name (the live table's and the devices process's one entry):
    `read` (the UIDs of each row), `count` (by denomination), `sell`, `fill` and `credit` (`cents`: the chips'
    count for fill and credit), `tidy`, `steal` (a chip of `cents` taken: its UID)."""
    if action == "read":
        return {"rows": {row: sorted(chip.uid for chip in tags) for row, tags in chips.tray().items()}}
    if action == "count":
        return {"chips": chips.counted(), "cents": chips.tray_cents}
    if action == "sell":
        chips.sell(cents)
        return {}
    if action in ("fill", "credit"):
        return {"chips": chips.fill(cents) if action == "fill" else chips.credit(cents)}
    if action == "tidy":
        chips.tidy()
        return {}
    if action == "steal":
        return {"uid": chips.steal(cents).uid}
    raise ValueError(f"no tray action {action!r}: {', '.join(TRAY_ACTIONS)}")
