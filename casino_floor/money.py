"""A table's money as a casino's finance names it, defined once for the store, the queries and the pit page.

- **Handle**: what was wagered, every stake of every settled round (`stakes_cents`: the seated and behind
  stakes, insurance, doubles and splits, and hyper black jack's (kind ``hyper.<case>``), as the round's payouts
  list them; a voided round's stakes go back and count for nothing).
- **Drop**: what went into the table's drop box, the cash and the markers the dealer exchanged for chips at the
  table (the table's `BuyInRecorded` events: table_runtime/core/buy_ins.py). Not a stake.
- **Win**: what the house kept from settlement (minus the players' net; negative when the players won).
- **Hold** = win / drop, in percent: what finance reports for a table game; none while the drop is 0 (no
  buy-in recorded), shown as "—".
- **Win / handle**, in percent: the house's actual edge on what was wagered; none while the handle is 0.

The pure functions read one round record or one buy-in body as the feed carries them; `ShiftMoney` adds them up
for a table (or the pit) and a shift.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

BUY_IN_EVENT: Final = "BuyInRecorded"


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _payouts(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if record.get("result") == "voided":  # a voided round's stakes go back: no handle, no win
        return []
    return [payout for payout in record.get("payouts") or () if isinstance(payout, Mapping)]


def stakes_cents(payouts: Iterable[Mapping[str, Any]]) -> int:
    """The one sum of stakes (the handle of a round): every stake's `staked_cents`, whatever its kind (original,
    behind, insurance, double, split, and any kind a later rule adds)."""
    return sum(_int(payout.get("staked_cents")) for payout in payouts)


def round_handle_cents(record: Mapping[str, Any]) -> int:
    """The handle of a round record (kind `round`, `RoundRecord`)."""
    return stakes_cents(_payouts(record))


def round_win_cents(record: Mapping[str, Any]) -> int:
    """The house's win of a round record: minus the players' net."""
    return -sum(_int(payout.get("net_cents")) for payout in _payouts(record))


def buy_in_cents(body: Mapping[str, Any]) -> int:
    """The drop of a `BuyInRecorded` event body (0 for any other body)."""
    return _int(body.get("cents")) if body.get("type") == BUY_IN_EVENT else 0


def percent(part: int, whole: int) -> float | None:
    """`part` / `whole` in percent with two decimals; None when `whole` is 0 (the page shows "—")."""
    return round(100 * part / whole, 2) if whole else None


@dataclass(slots=True)
class ShiftMoney:
    """The money of a table (or the pit) in a shift: rounds, handle, buy-ins and drop, win; hold and win / handle."""

    rounds: int = 0
    handle_cents: int = 0
    buy_ins: int = 0
    drop_cents: int = 0
    win_cents: int = 0

    def add_round(self, record: Mapping[str, Any]) -> None:
        self.rounds += 1
        self.handle_cents += round_handle_cents(record)
        self.win_cents += round_win_cents(record)

    def add_buy_in(self, body: Mapping[str, Any]) -> None:
        self.buy_ins += 1
        self.drop_cents += buy_in_cents(body)

    def add(self, other: ShiftMoney) -> None:
        self.rounds += other.rounds
        self.handle_cents += other.handle_cents
        self.buy_ins += other.buy_ins
        self.drop_cents += other.drop_cents
        self.win_cents += other.win_cents

    @property
    def hold_pct(self) -> float | None:
        """Win / drop in percent (None with no drop)."""
        return percent(self.win_cents, self.drop_cents)

    @property
    def win_to_handle_pct(self) -> float | None:
        """Win / handle in percent (None with no handle)."""
        return percent(self.win_cents, self.handle_cents)

    def to_dict(self, shift: str) -> dict[str, Any]:
        return {"shift": shift, "rounds": self.rounds, "handle_cents": self.handle_cents, "buy_ins": self.buy_ins,
                "drop_cents": self.drop_cents, "win_cents": self.win_cents, "hold_pct": self.hold_pct,
                "win_to_handle_pct": self.win_to_handle_pct}
