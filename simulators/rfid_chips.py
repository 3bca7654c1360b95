"""Chips for the simulated reader: a casino's issued chips, its registry export, fakes.

`ChipIssuer` mints tags for one casino, remembers them, and writes the CSV the
casino's chip management would export (the columns `table-runtime chips
import` reads, see table_runtime/chips/registry.py). Counterfeits, foreign chips
and chips whose tag disagrees with the registry are tags it does not export or
exports differently.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable

from firmware_bridge.rfid import Tag

DENOMINATIONS_CENTS = (100_000, 50_000, 10_000, 2_500, 1_000, 500, 100)
CASINO_ID = 7  # the demo table's casino
TRAY_DENOMINATIONS = (*DENOMINATIONS_CENTS, 50)  # 3:2 on an odd number of euros needs a 50-cent chip


class ChipIssuer:
    """The chips one casino has put in play, and their registry status."""

    def __init__(self, casino_id: int, *, seed: int = 0) -> None:
        self.casino_id = casino_id
        self._random = random.Random(seed)
        self.issued: dict[str, Tag] = {}
        self.status: dict[str, str] = {}

    def _uid(self) -> str:
        while True:
            uid = "E004" + "".join(f"{self._random.randrange(256):02X}" for _ in range(6))
            if uid not in self.issued:
                return uid

    def issue(self, denomination_cents: int, count: int = 1) -> list[Tag]:
        chips = [Tag(uid=self._uid(), denomination_cents=denomination_cents, casino_id=self.casino_id)
                 for _ in range(count)]
        for chip in chips:
            self.issued[chip.uid] = chip
            self.status[chip.uid] = "active"
        return chips

    def stack(self, amount_cents: int, denominations: Iterable[int] = DENOMINATIONS_CENTS) -> list[Tag]:
        """Fresh chips worth exactly `amount_cents`, largest denominations first."""
        chips: list[Tag] = []
        left = amount_cents
        for denomination in sorted(denominations, reverse=True):
            count, left = divmod(left, denomination)
            chips += self.issue(denomination, count)
        if left:
            raise ValueError(f"{amount_cents} cents cannot be made of {sorted(denominations)}")
        return chips

    def mark(self, uid: str, status: str) -> None:
        self.status[uid] = status

    def counterfeit(self, denomination_cents: int) -> Tag:
        """A tag that looks like ours but the casino never issued."""
        return Tag(uid=self._uid(), denomination_cents=denomination_cents, casino_id=self.casino_id)

    def relabelled(self, chip: Tag, denomination_cents: int) -> Tag:
        """An issued chip whose tag was rewritten to another denomination."""
        return Tag(uid=chip.uid, denomination_cents=denomination_cents, casino_id=chip.casino_id)

    def csv(self, *, delimiter: str = ";") -> str:
        """The registry export: uid, denomination in euros, casino id, status, plus a column we ignore."""
        lines = [delimiter.join(("uid", "denomination", "casino_id", "status", "issued_on"))]
        for uid, chip in self.issued.items():
            assert chip.denomination_cents is not None
            euros, cents = divmod(chip.denomination_cents, 100)
            amount = f"{euros},{cents:02d}" if delimiter == ";" else f"{euros}.{cents:02d}"
            lines.append(delimiter.join((uid, amount, str(self.casino_id), self.status[uid].upper(), "2026-01-15")))
        return "\n".join(lines) + "\n"


class ChipTray:
    """The dealer's float: registered chips handed out for stakes and payouts, and taken back."""

    def __init__(self, issuer: ChipIssuer, *, per_denomination: int = 400) -> None:
        self.issuer = issuer
        self.free: dict[int, list[Tag]] = defaultdict(list)
        for denomination in TRAY_DENOMINATIONS:
            self.free[denomination] = issuer.issue(denomination, per_denomination)

    def take(self, cents: int) -> list[Tag]:
        chips: list[Tag] = []
        left = cents
        for denomination in sorted(TRAY_DENOMINATIONS, reverse=True):
            while left >= denomination:
                if not self.free[denomination]:
                    self.free[denomination] = self.issuer.issue(denomination, 50)
                chips.append(self.free[denomination].pop())
                left -= denomination
        if left:
            raise ValueError(f"{cents} cents cannot be made of chips {TRAY_DENOMINATIONS}")
        return chips

    def take_each(self, cents: int, count: int) -> list[Tag]:
        """`count` chips of `cents` each (the change of a larger chip)."""
        while len(self.free[cents]) < count:
            self.free[cents] += self.issuer.issue(cents, 50)
        return [self.free[cents].pop() for _ in range(count)]

    def give_back(self, chips: list[Tag]) -> None:
        for chip in chips:
            assert chip.denomination_cents is not None
            self.free[chip.denomination_cents].append(chip)
