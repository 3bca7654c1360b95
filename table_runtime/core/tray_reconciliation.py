"""Continuous reconciliation of the chip tray: after every round, the tray the table expects against the tray read.

The tray holds the table's advance in chips (arrêté du 14 mai 2007, art. 49); every chip that leaves or enters it
during play is explained by the table's own events:

    expected = last counted tray + losing stakes collected - payouts - chips sold at buy-ins + fills - credits

(the same identity as the séance's win: closer - opener + credits - fills + drop, docs/accounts.md). The losing
stakes and the payouts are the round's settlement (`Payout.net_cents`: < 0 collected, > 0 paid), read when the
round closes; the chips sold are the buy-ins (`BuyIn.cents`, core/buy_ins.py); fills and credits are the séance's
slips (`TrayWatch.fill`, `TrayWatch.credit`, or `TrayFlows` given to `reconcile`).

When it is checked (`TrayWatch.round_started`): at the lock of the next round, once the dealer has put the last
round's chips away. The tray is known only from whole reads (core/tray.py: every row answered, the same chips
over several scans), so a read while chips move or a row unread never counts: the tray's state is its last whole
read. The tray is compared only if it was read whole since the round closed: the readers' edge reports the tray
once more at its first whole read after a close, even unchanged (`wants_read`, chips/edge.py `want_tray_read`). A
tray not read whole since (a row's antenna faulty, its reader offline, chips moving all the while) is not compared:
the check waits, the flows carried to the next round's, until the tray is read whole again.

A whole read takes several seconds (3 scans of a 300-chip tray at 38400 baud, bench/README.md), so the last whole
read at the lock may predate chips the dealer racked just before the deal. A variance at the lock is therefore a
verdict pending: a whole read that matches before the round's first chips go through the tray (a blackjack paid at
once, a surrender, the settlement, a void: `chips_moving`) clears it; otherwise the variance is raised then, within
the round after the one checked. So an incomplete read or a slow dealer gives no variance, only a later check.
A variance is one `tray_variance` alarm naming the round, the amounts, each denomination's chips missing or extra
and their UIDs; the tray as read is then the new count (the alarm is raised once, not every round after).

Pure: `reconcile` takes two counts and the flows and returns the variance; `TrayWatch` is the core's state,
folded from its inputs like the chip watch (core/table_core.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from table_runtime.core.inputs import ZoneChanged, ZoneChip
from table_runtime.core.tray import is_tray_zone
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import (
    Alarm,
    BlackjackPaidEarly,
    HandSurrendered,
    Payout,
    RoundClosed,
    RoundSettled,
    RoundVoided,
)

RULE_TRAY = ("arrêté du 14 mai 2007, art. 49 (« Avances à la caisse »): the tray holds the table's advance; "
             "expected = last read + losing stakes collected - payouts - chips sold + fills - credits")
# The events after which chips of the round in play go through the tray: a check pending from the lock is decided.
TRAY_MOVES = (BlackjackPaidEarly, HandSurrendered, RoundSettled, RoundVoided, RoundClosed)
UIDS_NAMED = 8  # chips a variance's message names by UID, per side (the others are counted)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayFlows:
    """The chips the table's events say went into (+) or out of (-) the tray since the last count, in cents."""

    collected_cents: int = 0  # losing stakes collected into the tray
    paid_cents: int = 0  # payouts paid out of it
    sold_cents: int = 0  # chips sold at buy-ins
    fills_cents: int = 0  # complementary advances brought to the table (art. 49)
    credits_cents: int = 0  # chips sent back to the cage

    @property
    def net_cents(self) -> int:
        return self.collected_cents - self.paid_cents - self.sold_cents + self.fills_cents - self.credits_cents

    def plus(self, other: TrayFlows) -> TrayFlows:
        return TrayFlows(collected_cents=self.collected_cents + other.collected_cents,
                         paid_cents=self.paid_cents + other.paid_cents, sold_cents=self.sold_cents + other.sold_cents,
                         fills_cents=self.fills_cents + other.fills_cents,
                         credits_cents=self.credits_cents + other.credits_cents)


def settlement_flows(payouts: Iterable[Payout]) -> TrayFlows:
    """A round's settlement as chips into and out of the tray: each lost stake collected, each win paid."""
    nets = [payout.net_cents for payout in payouts]
    return TrayFlows(collected_cents=-sum(net for net in nets if net < 0),
                     paid_cents=sum(net for net in nets if net > 0))


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayVariance:
    """The tray read differs from the tray expected: by how much, and the chips no event explains."""

    round: int  # the round after which the tray was checked
    expected_cents: int
    seen_cents: int
    missing: tuple[ZoneChip, ...]  # counted before, not read now, never seen on the table since
    extra: tuple[ZoneChip, ...]  # read now, not counted before, never seen on the table since

    @property
    def variance_cents(self) -> int:
        return self.seen_cents - self.expected_cents

    def by_denomination(self) -> dict[int, tuple[int, int]]:
        """Per denomination (cents), how many chips are missing and how many extra."""
        out: dict[int, tuple[int, int]] = {}
        for chip in self.missing:
            missing, extra = out.get(chip.cents, (0, 0))
            out[chip.cents] = (missing + 1, extra)
        for chip in self.extra:
            missing, extra = out.get(chip.cents, (0, 0))
            out[chip.cents] = (missing, extra + 1)
        return dict(sorted(out.items(), reverse=True))


def reconcile(round_number: int, counted: Mapping[str, ZoneChip], read: Mapping[str, ZoneChip], flows: TrayFlows,
              seen_on_table: frozenset[str] = frozenset()) -> TrayVariance | None:
    """The variance between the tray `read` (UID -> chip, a whole read) and the tray `counted` before plus the
    `flows` since, if any; the chips read on a table zone since the count (`seen_on_table`: paid out, or collected)
    are explained, the others missing or extra are named."""
    expected = sum(chip.cents for chip in counted.values()) + flows.net_cents
    seen = sum(chip.cents for chip in read.values())
    if seen == expected:
        return None
    missing = tuple(counted[uid] for uid in sorted(set(counted) - set(read) - seen_on_table))
    extra = tuple(read[uid] for uid in sorted(set(read) - set(counted) - seen_on_table))
    return TrayVariance(round=round_number, expected_cents=expected, seen_cents=seen, missing=missing, extra=extra)


def variance_alarm(variance: TrayVariance) -> Alarm:
    """The `tray_variance` alarm: the round, the amounts, each denomination's chips missing or extra, their UIDs."""
    parts = []
    for cents, (missing, extra) in variance.by_denomination().items():
        if missing:
            parts.append(f"{missing} x {_euros(cents)} missing")
        if extra:
            parts.append(f"{extra} x {_euros(cents)} extra")
    uids = []
    if variance.missing:
        uids.append("missing " + _uids(variance.missing))
    if variance.extra:
        uids.append("extra " + _uids(variance.extra))
    sign = "+" if variance.variance_cents > 0 else "-"
    message = (f"tray after round {variance.round}: expected {_euros(variance.expected_cents)}, read "
               f"{_euros(variance.seen_cents)} ({sign}{_euros(abs(variance.variance_cents))})"
               + (f"; {', '.join(parts)}" if parts else "; no chip unexplained (a payout or collection miscounted)")
               + (f"; {'; '.join(uids)}" if uids else ""))
    chips = variance.missing or variance.extra
    denominations = {chip.cents for chip in chips}
    amounts = [("expected_cents", variance.expected_cents), ("seen_cents", variance.seen_cents),
               ("variance_cents", variance.variance_cents), ("round", variance.round)]
    if len(denominations) == 1:
        amounts.append(("denomination_cents", denominations.pop()))
    return Alarm(kind=AlarmKind.TRAY_VARIANCE, message=message, rule=RULE_TRAY, amounts=tuple(amounts),
                 count=max(1, len(variance.missing) + len(variance.extra)))


def _euros(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d} €"


def _uids(chips: tuple[ZoneChip, ...]) -> str:
    named = ", ".join(chip.uid for chip in chips[:UIDS_NAMED])
    more = len(chips) - UIDS_NAMED
    return named + (f" and {more} more" if more > 0 else "")


@dataclass(slots=True)
class TrayWatch:
    """The core's account of the tray: its rows as last read whole, the count the next check starts from, and the
    chips the table's events moved since (`TrayFlows`). Folded from the core's inputs (core/table_core.py)."""

    rows: dict[str, tuple[ZoneChip, ...]] = field(default_factory=dict)  # tray row -> its chips, last whole read
    counted: dict[str, ZoneChip] | None = None  # UID -> chip: the tray at the last check (None: never counted)
    flows: TrayFlows = TrayFlows()  # since `counted`
    seen_on_table: set[str] = field(default_factory=set)  # UIDs read on a table zone since `counted`
    on_table: dict[str, frozenset[str]] = field(default_factory=dict)  # table zone -> the UIDs on it now
    due: int = 0  # the round closed whose check is due (0: none)
    read_since_close: bool = False  # a tray row was read whole since that round closed
    pending: int = 0  # the round whose check found a variance at the lock: the verdict waits (`chips_moving`)
    variances: int = 0  # tray_variance alarms raised

    # -- views ---------------------------------------------------------------------------------
    @property
    def chips(self) -> dict[str, ZoneChip]:
        """The tray as last read whole, UID -> chip."""
        return {chip.uid: chip for chips in self.rows.values() for chip in chips}

    @property
    def read_cents(self) -> int:
        return sum(chip.cents for chips in self.rows.values() for chip in chips)

    @property
    def expected_cents(self) -> int | None:
        if self.counted is None:
            return None
        return sum(chip.cents for chip in self.counted.values()) + self.flows.net_cents

    def by_denomination(self) -> dict[int, int]:
        """The tray as last read whole, chips by denomination (cents -> how many), largest first: the opener or the
        closer a séance takes from the tray's read (issue 33), refused chips left out."""
        counts: dict[int, int] = {}
        for chip in self.chips.values():
            if not chip.refused:
                counts[chip.cents] = counts.get(chip.cents, 0) + 1
        return dict(sorted(counts.items(), reverse=True))

    def view(self) -> dict[str, int | None]:
        """The snapshot's `tray`: the float read, the float expected (None before the first count)."""
        return {"read_cents": self.read_cents, "expected_cents": self.expected_cents, "due_round": self.due or None}

    @property
    def wants_read(self) -> bool:
        """A round closed and the tray was not read whole since: the edge reports its next whole read."""
        return bool(self.due) and not self.read_since_close

    # -- inputs --------------------------------------------------------------------------------
    def zone_changed(self, item: ZoneChanged) -> None:
        """A zone's judged chips: a tray row's whole read, or a table zone (its chips came from or go to the tray)."""
        if is_tray_zone(item.zone):
            self.rows[item.zone] = item.chips
            if self.due:
                self.read_since_close = True
            if self.pending and self.counted is not None and reconcile(
                    self.pending, self.counted, self.chips, self.flows, frozenset(self.seen_on_table)) is None:
                self._count(self.chips)  # the chips the lock missed were racked since: no variance
        else:
            uids = frozenset(chip.uid for chip in item.chips)
            self.on_table[item.zone] = uids
            self.seen_on_table.update(uids)

    def sold(self, cents: int) -> None:
        """Chips sold at a buy-in: out of the tray (less than 0: chips bought back for cash, into it)."""
        self.flows = self.flows.plus(TrayFlows(sold_cents=cents))

    def fill(self, cents: int) -> None:
        """A complementary advance (a fill slip, the séance's): chips into the tray."""
        self.flows = self.flows.plus(TrayFlows(fills_cents=cents))

    def credit(self, cents: int) -> None:
        """A credit slip (the séance's): chips out of the tray to the cage."""
        self.flows = self.flows.plus(TrayFlows(credits_cents=cents))

    def round_closed(self, number: int, payouts: Iterable[Payout]) -> None:
        """A round closed: its settlement's chips went through the tray; the tray is checked at the next lock."""
        self.flows = self.flows.plus(settlement_flows(payouts))
        self.due = number
        self.read_since_close = False

    def round_started(self, rows: Iterable[str]) -> list[Alarm]:
        """The next round's lock: the tray as last read whole against the tray expected (the module's docstring)."""
        rows = tuple(rows)
        if not rows or any(row not in self.rows for row in rows):
            return []  # no tray, or a row never read whole since the start: nothing to count
        read = self.chips
        if self.counted is None:
            self._count(read)  # the first whole read: the count the checks start from
            return []
        variance = reconcile(self.due, self.counted, read, self.flows, frozenset(self.seen_on_table))
        if variance is None:
            self._count(read)
            return []
        if self.due and not self.read_since_close:
            return []  # not read whole since the round closed: wait, the flows go on to the next check
        self.pending = self.due  # the verdict waits for the round's first chips through the tray (`chips_moving`)
        return []

    def chips_moving(self) -> list[Alarm]:
        """Chips of the round in play go through the tray (a payout, a collection): the verdict of a check the lock
        left pending, on the tray as last read whole (racked late, the chips were read in by now)."""
        if not self.pending:
            return []
        variance = reconcile(self.pending, self.counted or {}, self.chips, self.flows, frozenset(self.seen_on_table))
        self._count(self.chips)
        if variance is None:
            return []
        self.variances += 1
        return [variance_alarm(variance)]

    # -- the checkpoint -------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The watch as a checkpoint holds it (core/core_state.py): a start from the checkpoint checks the tray as
        a replay from the first row would."""
        return {
            "rows": {row: [_chip(chip) for chip in chips] for row, chips in sorted(self.rows.items())},
            "counted": None if self.counted is None else [_chip(chip) for _, chip in sorted(self.counted.items())],
            "flows": [self.flows.collected_cents, self.flows.paid_cents, self.flows.sold_cents,
                      self.flows.fills_cents, self.flows.credits_cents],
            "seen_on_table": sorted(self.seen_on_table),
            "on_table": {zone: sorted(uids) for zone, uids in sorted(self.on_table.items())},
            "due": self.due, "read_since_close": self.read_since_close, "pending": self.pending,
            "variances": self.variances,
        }

    @classmethod
    def restore(cls, state: Mapping[str, Any]) -> TrayWatch:
        """The watch `state` described (an empty one for a checkpoint written before the tray was read)."""
        if not state:
            return cls()
        counted = state["counted"]
        collected, paid, sold, fills, credits = (int(cents) for cents in state["flows"])
        return cls(rows={str(row): tuple(_zone_chip(chip) for chip in chips) for row, chips in state["rows"].items()},
                   counted=None if counted is None else {str(chip["uid"]): _zone_chip(chip) for chip in counted},
                   flows=TrayFlows(collected_cents=collected, paid_cents=paid, sold_cents=sold, fills_cents=fills,
                                   credits_cents=credits),
                   seen_on_table={str(uid) for uid in state["seen_on_table"]},
                   on_table={str(zone): frozenset(str(uid) for uid in uids)
                             for zone, uids in state["on_table"].items()},
                   due=int(state["due"]), read_since_close=bool(state["read_since_close"]),
                   pending=int(state["pending"]), variances=int(state["variances"]))

    def _count(self, read: dict[str, ZoneChip]) -> None:
        self.counted = read
        self.flows = TrayFlows()
        self.seen_on_table = set().union(*self.on_table.values())  # chips on the table at the count: not the tray's
        self.due = 0
        self.read_since_close = False
        self.pending = 0


def _chip(chip: ZoneChip) -> dict[str, Any]:
    return {"uid": chip.uid, "cents": chip.cents, **({"refused": chip.refused} if chip.refused else {})}


def _zone_chip(chip: Mapping[str, Any]) -> ZoneChip:
    return ZoneChip(uid=str(chip["uid"]), cents=int(chip["cents"]), refused=str(chip.get("refused", "")))
