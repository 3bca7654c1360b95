"""The séance: the table's accounts from its opening count to its closing count, a part of the one table state.

A séance (arrêté du 14 mai 2007, art. 49 and 69; docs/accounts.md) opens with the chip tray counted (the
**opener**, the initial advance, by denomination), takes **fills** (complementary advances, each equal to the
initial advance: art. 49) and **credits** (chips sent back to the cash desk) as numbered slips, each asked by
the dealer and confirmed by the supervisor (two roles: `Signature`), takes the buy-ins (core/buy_ins.py) into
the **drop** (cash and markers), the **tips** into the tronc (never takings: Code du travail L.3244-1, CSI
R.321-34), records **orphan chips** apart (not the casino's), and closes with the tray counted (the
**closer**). Its win (produit brut des jeux, CGCT L.2333-55-1) is closer − opener + credits − fills + drop.

Every step is an input, journaled like every other (docs/journal.md) and folded by `TableCore`
(core/table_core.py) into `Seances`; its state is sealed in the checkpoints (core/core_state.py), so a séance
spans restarts and power cuts, and every reader (`table-runtime accounts`, recall, the feed) reads the same
fold. The counts are inputs whatever made them: the dealer's manual count by denomination today, a tray read
later (`Count.source`).

The identity alarm (CMF L.561-13, décret n° 2009-1013): the buy-in or the change (chips exchanged for cash, or
coloured up for other chips, at the table: `ChipsChanged`) that takes a player (his rated pseudonym, or his box
while he is not identified) past 2,000 € exchanged in the séance raises `aml_identity_required` naming the box
and the amounts; the supervisor records the reference of the identity taken (never the
identity itself: `IdentityRecorded`).

What each command may be is decided here (`seance_decision`), once. Pure: no I/O, no clock.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from table_runtime.core.buy_ins import BuyIn, Tender
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.codec import CodecError
from table_runtime.game.commands import Command
from table_runtime.game.events import Alarm, Event, RoundClosed, RoundSettled, RoundVoided, SeanceUpdated
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.player_ids import is_pseudonym
from table_runtime.game.refusals import Refusal, RefusalReason

IDENTITY_THRESHOLD_CENTS: Final = 200_000  # more than 2,000 € exchanged in a séance (décret n° 2009-1013)
SEANCE_RULE: Final = "arrêté du 14 mai 2007, art. 49 et 69 : la séance, ses avances et son encaisse"
IDENTITY_RULE: Final = "CMF L.561-13, décret n° 2009-1013 : identité au-delà de 2 000 € échangés dans la séance"
DENOMINATIONS_MAX: Final = 32  # denominations one count lists at most
CHIPS_MAX: Final = 1_000_000  # chips of one denomination in one count
CENTS_MAX: Final = 10**12  # one amount (a tip, orphan chips): within what the floor stores
REFERENCE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9/.-]{0,31}")  # a register's number, never a name
WHERE_MAX: Final = 40  # characters of where orphan chips were found

SEANCE_COMMANDS: Final = frozenset({Command.SEANCE_OPEN, Command.SEANCE_CLOSE, Command.FILL, Command.CREDIT,
                                    Command.SLIP_CONFIRM, Command.TIP, Command.ORPHAN_CHIPS,
                                    Command.IDENTITY_RECORDED, Command.CHANGE})
CONFIRMING_COMMANDS: Final = frozenset({Command.SLIP_CONFIRM, Command.IDENTITY_RECORDED})
"""The supervisor's: the second role of a slip, the identity's reference (the PIN on the display)."""


class SlipKind(enum.StrEnum):
    """A numbered slip of chips into the tray (a complementary advance) or out of it (back to the cash desk)."""

    FILL = "fill"
    CREDIT = "credit"


class ChangeKind(enum.StrEnum):
    """What a player's chips were changed for at the table: banknotes (out of the drop box), or other chips
    (colouring up or down: nothing leaves the tray's value)."""

    CASH = "cash"
    CHIPS = "chips"


class CountSource(enum.StrEnum):
    """Who counted the tray: the dealer by hand, or the tray's readers."""

    MANUAL = "manual"
    TRAY = "tray"


@dataclass(frozen=True, slots=True, kw_only=True)
class Signature:
    """Who signed: the role today (the supervisor by the PIN on the display); `name` is empty until each person
    has an identity of his own (the staff registry), the seam where the name goes."""

    role: str
    name: str = ""

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, **({"name": self.name} if self.name else {})}

    @classmethod
    def from_json(cls, value: Any) -> Signature:
        if isinstance(value, str):
            return cls(role=value)
        return cls(role=str(value["role"]), name=str(value.get("name", "")))


def signature_of(role: str, args: Mapping[str, Any]) -> Signature:
    """The signature of a command given as `role` (the staff registry will name the person here)."""
    del args  # the names come with the staff registry
    return Signature(role=role)


@dataclass(frozen=True, slots=True, kw_only=True)
class Count:
    """Chips counted by denomination: (denomination in cents, how many), highest first."""

    chips: tuple[tuple[int, int], ...]
    source: str = CountSource.MANUAL

    @property
    def cents(self) -> int:
        return sum(denomination * number for denomination, number in self.chips)

    def to_json(self) -> dict[str, Any]:
        return {"chips": {str(denomination): number for denomination, number in self.chips},
                "source": str(self.source)}


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def count_of(value: Any, source: Any = CountSource.MANUAL) -> Count | str:
    """A count from ``{"500": 12, "10000": 3}`` (denomination in cents: how many), or what is wrong with it."""
    if not isinstance(value, Mapping) or not value:
        return "a count lists the chips by denomination, e.g. {\"10000\": 3, \"500\": 12}"
    if len(value) > DENOMINATIONS_MAX:
        return f"a count lists at most {DENOMINATIONS_MAX} denominations, not {len(value)}"
    if source not in tuple(CountSource):
        return f"counted {source!r}: manual or tray"
    chips: list[tuple[int, int]] = []
    for key, number in value.items():
        denomination = int(key) if isinstance(key, str) and key.isdigit() else _whole(key)
        whole = _whole(number)
        if denomination is None or not 0 < denomination <= CENTS_MAX:
            return f"denomination {key!r} is not a whole number of cents above 0"
        if whole is None or not 0 <= whole <= CHIPS_MAX:
            return f"{number!r} chips of {denomination} cents: a whole number from 0 to {CHIPS_MAX}"
        if whole:
            chips.append((denomination, whole))
    return Count(chips=tuple(sorted(chips, reverse=True)), source=CountSource(source))


def _count_from_json(value: Mapping[str, Any]) -> Count:
    counted = count_of(dict(value["chips"]), value.get("source", CountSource.MANUAL))
    if isinstance(counted, str):
        raise ValueError(counted)
    return counted


# -- the inputs --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class SeanceOpened:
    """The séance opened with the tray counted (the initial advance, art. 49)."""

    opener: Count
    by: Signature


@dataclass(frozen=True, slots=True, kw_only=True)
class SlipRequested:
    """The dealer asks for a fill (a complementary advance into the tray) or a credit (chips back to the cash
    desk): slip `number`, the chips by denomination. It counts once the supervisor confirms it."""

    slip: str
    number: int
    chips: Count
    by: Signature


@dataclass(frozen=True, slots=True, kw_only=True)
class SlipConfirmed:
    """The second role (the supervisor) confirms slip `number`: its chips are in (or out of) the tray."""

    number: int
    by: Signature


@dataclass(frozen=True, slots=True, kw_only=True)
class TipReceived:
    """A player at `box` gave `cents` in chips as a tip: into the tronc's slot at once, never takings."""

    box: int
    cents: int
    by: Signature


@dataclass(frozen=True, slots=True, kw_only=True)
class OrphanChipsFound:
    """Chips with no owner (« orphelins ») found at the table (`where`): recorded apart, not the casino's."""

    cents: int
    where: str
    by: Signature


@dataclass(frozen=True, slots=True, kw_only=True)
class IdentityRecorded:
    """The supervisor took the identity of the player `player` (a pseudonym, or ``boxN`` while unidentified) and
    records its reference in the register (never the identity itself)."""

    player: str
    reference: str
    by: Signature


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipsChanged:
    """The dealer changed `cents` of a player's chips (at `box`, or the rated `player`) at the table: for banknotes
    (`to` cash: the chips into the tray, the banknotes out of the drop box) or for other chips (`to` chips:
    colouring up). An exchange of the séance for the identity check (CMF L.561-13) either way."""

    cents: int
    to: str
    box: int | None
    player: str
    by: Signature


@dataclass(frozen=True, slots=True, kw_only=True)
class SeanceClosed:
    """The séance closed with the tray counted (the closer)."""

    closer: Count
    by: Signature


SeanceInput = (SeanceOpened | SlipRequested | SlipConfirmed | TipReceived | OrphanChipsFound | IdentityRecorded
               | ChipsChanged | SeanceClosed)
SEANCE_INPUT_CLASSES: Final = (SeanceOpened, SlipRequested, SlipConfirmed, TipReceived, OrphanChipsFound,
                               IdentityRecorded, ChipsChanged, SeanceClosed)
SEANCE_INPUT_TYPES: Final = frozenset(cls.__name__ for cls in SEANCE_INPUT_CLASSES)


# -- the state ---------------------------------------------------------------------------------------------------
@dataclass(slots=True, kw_only=True)
class Slip:
    """A numbered slip of the séance, asked by one role and confirmed (or not yet) by the other."""

    slip_kind: str
    number: int
    chips: Count
    asked_by: Signature
    confirmed_by: Signature | None = None


@dataclass(slots=True, kw_only=True)
class SeanceAccount:
    """One séance's figures, in cents, as the fold made them."""

    number: int
    opener: Count
    opened_by: Signature
    slips: list[Slip] = field(default_factory=list)
    drop_cash_cents: int = 0  # the banknotes in the drop box: the buy-ins' cash less the change paid in cash
    drop_marker_cents: int = 0
    change_cash_cents: int = 0  # chips changed for banknotes at the table (out of drop_cash_cents)
    change_chips_cents: int = 0  # chips coloured up (or down) at the table
    tips_cents: int = 0
    tips: int = 0
    orphans_cents: int = 0
    players_net_cents: int = 0  # what the players won (+) or lost (-) by settlement in the séance
    rounds: int = 0  # rounds closed or voided in the séance
    exchanged: dict[str, int] = field(default_factory=dict)  # per player (pseudonym or boxN): buy-ins and change
    identified: dict[str, str] = field(default_factory=dict)  # per player: the reference of his identity
    closer: Count | None = None
    closed_by: Signature | None = None

    def _slips_cents(self, kind: SlipKind) -> int:
        return sum(slip.chips.cents for slip in self.slips if slip.slip_kind == kind and slip.confirmed_by is not None)

    @property
    def fills_cents(self) -> int:
        return self._slips_cents(SlipKind.FILL)

    @property
    def credits_cents(self) -> int:
        return self._slips_cents(SlipKind.CREDIT)

    @property
    def drop_cents(self) -> int:
        return self.drop_cash_cents + self.drop_marker_cents

    @property
    def pending(self) -> list[Slip]:
        return [slip for slip in self.slips if slip.confirmed_by is None]

    @property
    def expected_tray_cents(self) -> int:
        """What the tray holds if nothing went amiss: the opener, the fills, less the credits, the chips sold at
        the buy-ins (the drop) and what the players won by settlement."""
        return (self.opener.cents + self.fills_cents - self.credits_cents - self.drop_cents
                - self.players_net_cents)

    @property
    def win_cents(self) -> int | None:
        """closer − opener + credits − fills + drop (produit brut des jeux), once the closer is counted."""
        if self.closer is None:
            return None
        return self.closer.cents - self.opener.cents + self.credits_cents - self.fills_cents + self.drop_cents

    def figures(self) -> dict[str, Any]:
        """The séance's figures (accounts, the feed, the display, the demo's summary)."""
        return {
            "seance": self.number, "open": self.closer is None, "opener_cents": self.opener.cents,
            "fills_cents": self.fills_cents, "credits_cents": self.credits_cents, "drop_cents": self.drop_cents,
            "drop_cash_cents": self.drop_cash_cents, "drop_marker_cents": self.drop_marker_cents,
            "closer_cents": None if self.closer is None else self.closer.cents, "tips_cents": self.tips_cents,
            "orphans_cents": self.orphans_cents, "win_cents": self.win_cents,
            "players_net_cents": self.players_net_cents, "expected_tray_cents": self.expected_tray_cents,
            "fills": sum(1 for slip in self.slips if slip.slip_kind == SlipKind.FILL and slip.confirmed_by),
            "credits": sum(1 for slip in self.slips if slip.slip_kind == SlipKind.CREDIT and slip.confirmed_by),
            "tips": self.tips, "rounds": self.rounds,
            **({"change_cash_cents": self.change_cash_cents} if self.change_cash_cents else {}),
            **({"change_chips_cents": self.change_chips_cents} if self.change_chips_cents else {}),
        }

    def view(self) -> dict[str, Any]:
        """The figures with the counts, the slips and the identities (the display, `accounts --json`)."""
        return {**self.figures(), "opener": self.opener.to_json(), "opened_by": self.opened_by.to_json(),
                "closer": None if self.closer is None else self.closer.to_json(),
                "closed_by": None if self.closed_by is None else self.closed_by.to_json(),
                "slips": [_slip_json(slip) for slip in self.slips],
                "identities": [{"player": player, "reference": reference}
                               for player, reference in sorted(self.identified.items())],
                "exchanged": dict(sorted(self.exchanged.items()))}

    def state(self) -> dict[str, Any]:
        """The account as a checkpoint holds it."""
        return {"number": self.number, "opener": self.opener.to_json(), "opened_by": self.opened_by.to_json(),
                "slips": [_slip_json(slip) for slip in self.slips], "drop_cash_cents": self.drop_cash_cents,
                "drop_marker_cents": self.drop_marker_cents, "tips_cents": self.tips_cents, "tips": self.tips,
                "orphans_cents": self.orphans_cents, "players_net_cents": self.players_net_cents,
                "rounds": self.rounds, "exchanged": dict(self.exchanged), "identified": dict(self.identified),
                **({"change_cash_cents": self.change_cash_cents} if self.change_cash_cents else {}),
                **({"change_chips_cents": self.change_chips_cents} if self.change_chips_cents else {}),
                "closer": None if self.closer is None else self.closer.to_json(),
                "closed_by": None if self.closed_by is None else self.closed_by.to_json()}

    @classmethod
    def restore(cls, state: Mapping[str, Any]) -> SeanceAccount:
        closer, closed_by = state.get("closer"), state.get("closed_by")
        return cls(
            number=int(state["number"]), opener=_count_from_json(state["opener"]),
            opened_by=Signature.from_json(state["opened_by"]),
            slips=[Slip(slip_kind=str(SlipKind(slip["kind"])), number=int(slip["number"]),
                        chips=_count_from_json(slip["chips"]), asked_by=Signature.from_json(slip["asked_by"]),
                        confirmed_by=None if slip.get("confirmed_by") is None
                        else Signature.from_json(slip["confirmed_by"]))
                   for slip in state["slips"]],
            drop_cash_cents=int(state["drop_cash_cents"]), drop_marker_cents=int(state["drop_marker_cents"]),
            tips_cents=int(state["tips_cents"]), tips=int(state["tips"]), orphans_cents=int(state["orphans_cents"]),
            players_net_cents=int(state["players_net_cents"]), rounds=int(state.get("rounds", 0)),
            change_cash_cents=int(state.get("change_cash_cents", 0)),
            change_chips_cents=int(state.get("change_chips_cents", 0)),
            exchanged={str(key): int(value) for key, value in dict(state["exchanged"]).items()},
            identified={str(key): str(value) for key, value in dict(state["identified"]).items()},
            closer=None if closer is None else _count_from_json(closer),
            closed_by=None if closed_by is None else Signature.from_json(closed_by))


def _slip_json(slip: Slip) -> dict[str, Any]:
    return {"kind": slip.slip_kind, "number": slip.number, "chips": slip.chips.to_json(),
            "cents": slip.chips.cents, "asked_by": slip.asked_by.to_json(),
            "confirmed_by": None if slip.confirmed_by is None else slip.confirmed_by.to_json()}


def player_key(item: BuyIn | ChipsChanged) -> str:
    """Whose exchanges a buy-in or a change adds to: his rated pseudonym, else his box while he is not identified
    ("" for one for no box and no player: nobody to add it to)."""
    if item.player and is_pseudonym(item.player):
        return item.player
    return "" if item.box is None else f"box{item.box}"


def euros(cents: int) -> str:
    return f"{cents / 100:,.2f} €"


class Seances:
    """Every séance of the table: the one open (`current`, None between séances) and those closed, in order;
    the slips are numbered for the table (`slips_issued`), across séances."""

    def __init__(self) -> None:
        self.current: SeanceAccount | None = None
        self.closed: list[SeanceAccount] = []
        self.slips_issued = 0
        self.required = False  # the table's terms: no deal without an open séance ([seance] required)

    def __bool__(self) -> bool:
        return self.current is not None or bool(self.closed) or self.slips_issued > 0

    @property
    def opened(self) -> int:
        """How many séances were opened (the number of the next is one more)."""
        return len(self.closed) + (self.current is not None)

    @property
    def all(self) -> list[SeanceAccount]:
        return [*self.closed, *([self.current] if self.current is not None else [])]

    # -- the fold ----------------------------------------------------------------------------------------------
    def apply(self, item: SeanceInput) -> list[Event]:
        """Fold one séance input (checked by `seance_decision`; a journal's row that no longer fits is folded as
        far as it can: a slip confirmed twice counts once)."""
        if isinstance(item, SeanceOpened):
            if self.current is not None:  # a journal's second opening closes nothing: the first one stays
                return []
            self.current = SeanceAccount(number=self.opened + 1, opener=item.opener, opened_by=item.by)
            return [self._event("opened", item.opener.cents)]
        account = self.current
        if account is None:
            return []
        if isinstance(item, SlipRequested):
            self.slips_issued = max(self.slips_issued, item.number)
            account.slips.append(Slip(slip_kind=item.slip, number=item.number, chips=item.chips, asked_by=item.by))
            return [self._event(f"{item.slip}_requested", item.chips.cents, slip=item.number)]
        if isinstance(item, SlipConfirmed):
            slip = next((slip for slip in account.pending if slip.number == item.number), None)
            if slip is None:
                return []
            slip.confirmed_by = item.by
            return [self._event(f"{slip.slip_kind}_confirmed", slip.chips.cents, slip=slip.number)]
        if isinstance(item, TipReceived):
            account.tips_cents += item.cents
            account.tips += 1
            return [self._event("tip", item.cents, box=item.box)]
        if isinstance(item, OrphanChipsFound):
            account.orphans_cents += item.cents
            return [self._event("orphan_chips", item.cents)]
        if isinstance(item, IdentityRecorded):
            account.identified[item.player] = item.reference
            return [self._event("identity_recorded", 0, box=_box_of(item.player))]
        if isinstance(item, ChipsChanged):
            if item.to == ChangeKind.CASH:  # the chips into the tray, the banknotes out of the drop box
                account.change_cash_cents += item.cents
                account.drop_cash_cents -= item.cents
            else:
                account.change_chips_cents += item.cents
            return [self._event(f"change_{item.to}", item.cents, box=item.box), *self._exchanged(item)]
        account.closer, account.closed_by = item.closer, item.by
        self.closed.append(account)
        self.current = None
        return [self._event("closed", item.closer.cents, account=account)]

    def buy_in(self, item: BuyIn) -> list[Event]:
        """A buy-in (already journaled as such) into the open séance's drop, and the identity alarm it may raise."""
        account = self.current
        if account is None:
            return []
        if item.tender == Tender.MARKER:
            account.drop_marker_cents += item.cents
        else:
            account.drop_cash_cents += item.cents
        return [self._event("buy_in", item.cents, box=item.box), *self._exchanged(item)]

    def _exchanged(self, item: BuyIn | ChipsChanged) -> list[Event]:
        """The player's exchanges of the séance with `item`'s, and the identity alarm past the threshold."""
        account = self.current
        assert account is not None
        key = player_key(item)
        if not key:
            return []
        before = account.exchanged.get(key, 0)
        after = account.exchanged[key] = before + item.cents
        if before <= IDENTITY_THRESHOLD_CENTS < after and key not in account.identified:
            return [identity_alarm(item, key, after)]
        return []

    def settled(self, events: Iterable[Event]) -> None:
        """The players' net by settlement of a round of the séance (what the tray paid less what it took), and the
        rounds it counts."""
        account = self.current
        if account is None:
            return
        for event in events:
            if isinstance(event, RoundSettled):
                account.players_net_cents += sum(payout.net_cents for payout in event.payouts)
            elif isinstance(event, (RoundClosed, RoundVoided)):
                account.rounds += 1

    def _event(self, action: str, cents: int, *, slip: int | None = None, box: int | None = None,
               account: SeanceAccount | None = None) -> SeanceUpdated:
        account = account or self.current
        assert account is not None
        figures = account.figures()
        return SeanceUpdated(
            action=action, seance=account.number, cents=cents, slip=slip, box=box,
            opener_cents=figures["opener_cents"], fills_cents=figures["fills_cents"],
            credits_cents=figures["credits_cents"], drop_cash_cents=figures["drop_cash_cents"],
            drop_marker_cents=figures["drop_marker_cents"], tips_cents=figures["tips_cents"],
            orphans_cents=figures["orphans_cents"], closer_cents=figures["closer_cents"],
            win_cents=figures["win_cents"], players_net_cents=figures["players_net_cents"])

    # -- checkpoints -------------------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {"current": None if self.current is None else self.current.state(),
                "closed": [account.state() for account in self.closed], "slips_issued": self.slips_issued}

    @classmethod
    def restore(cls, state: Mapping[str, Any], *, required: bool = False) -> Seances:
        seances = cls()
        seances.required = required
        current = state.get("current")
        seances.current = None if current is None else SeanceAccount.restore(current)
        seances.closed = [SeanceAccount.restore(account) for account in state.get("closed", ())]
        seances.slips_issued = int(state.get("slips_issued", 0))
        return seances

    # -- the display -------------------------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the snapshot shows of the séance: the open one's figures and slips, or the last one closed."""
        out: dict[str, Any] = {"required": self.required, "open": self.current is not None}
        if self.current is not None:
            out["current"] = self.current.view()
        elif self.closed:
            out["last"] = self.closed[-1].figures()
        return out


def _box_of(player: str) -> int | None:
    return int(player[3:]) if player.startswith("box") and player[3:].isdigit() else None


def identity_alarm(item: BuyIn | ChipsChanged, key: str, total: int) -> Alarm:
    """`aml_identity_required`: the buy-in or the change `item` takes player `key` past the threshold in the
    séance (its amount `buy_in_cents` or `change_cents`)."""
    who = f"box {item.box}" if item.box is not None else "the player"
    rated = f" (rated player {key})" if key.startswith("p-") else ""
    if isinstance(item, BuyIn):
        what, amount = f"the buy-in of {euros(item.cents)}", "buy_in_cents"
    else:
        what, amount = f"the change of {euros(item.cents)} of chips for {item.to}", "change_cents"
    return Alarm(kind=AlarmKind.AML_IDENTITY_REQUIRED, box=item.box,
                 message=f"{who}{rated}: {what} takes the exchanges of the séance to "
                         f"{euros(total)}, more than {euros(IDENTITY_THRESHOLD_CENTS)}: take the player's identity "
                         "and record its reference",
                 rule=IDENTITY_RULE,
                 amounts=((amount, item.cents), ("seance_total_cents", total),
                          ("threshold_cents", IDENTITY_THRESHOLD_CENTS)))


# -- the commands ------------------------------------------------------------------------------------------------
def deal_refusal(seances: Seances) -> Refusal | None:
    """A deal while the terms ask for an open séance and none is open."""
    if seances.required and seances.current is None:
        return Refusal(RefusalReason.NO_SEANCE,
                       "no séance is open: the table deals only in an open séance (open it with the tray counted)")
    return None


def deal_problems(seances: Seances) -> list[Alarm]:
    """A bet lock refused while the terms ask for an open séance and none is open (the panel's DEAL and the first
    card out of the shoe as well as the display's): a refused command's alarm."""
    refusal = deal_refusal(seances)
    if refusal is None:
        return []
    return [Alarm(kind=AlarmKind.COMMAND_REFUSED, message=f"bets not locked: {refusal.text}", rule=SEANCE_RULE,
                  reason=refusal.reason)]


def seance_decision(seances: Seances, command: Command, args: Mapping[str, Any], *, role: str,
                    round_in_play: bool, boxes: int) -> SeanceInput | Refusal:
    """The input a séance command (`SEANCE_COMMANDS`) by `role` means now, or why it is refused."""
    by = signature_of(role, args)
    account = seances.current
    if command == Command.SEANCE_OPEN:
        if account is not None:
            return Refusal(RefusalReason.SEANCE_OPEN, f"séance {account.number} is open already")
        if round_in_play:
            return Refusal(RefusalReason.WRONG_PHASE, "a round is in play: the séance opens between rounds")
        opener = count_of(args.get("chips"), args.get("source", CountSource.MANUAL))
        if isinstance(opener, str):
            return Refusal(RefusalReason.BAD_COUNT, opener)
        if opener.cents <= 0:
            return Refusal(RefusalReason.BAD_COUNT, "the initial advance is more than 0 (art. 49)")
        return SeanceOpened(opener=opener, by=by)
    if account is None:
        return Refusal(RefusalReason.NO_SEANCE, "no séance is open")
    if command == Command.SEANCE_CLOSE:
        if round_in_play:
            return Refusal(RefusalReason.WRONG_PHASE, "a round is in play: the séance closes between rounds")
        if account.pending:
            numbers = ", ".join(str(slip.number) for slip in account.pending)
            return Refusal(RefusalReason.SLIPS_PENDING, f"slip(s) {numbers} wait for the supervisor's confirmation")
        closer = count_of(args.get("chips"), args.get("source", CountSource.MANUAL))
        if isinstance(closer, str):
            return Refusal(RefusalReason.BAD_COUNT, closer)
        return SeanceClosed(closer=closer, by=by)
    if command in (Command.FILL, Command.CREDIT):
        chips = count_of(args.get("chips"))
        if isinstance(chips, str):
            return Refusal(RefusalReason.BAD_COUNT, chips)
        if chips.cents <= 0:
            return Refusal(RefusalReason.BAD_COUNT, "a slip moves more than 0 cents")
        if command == Command.FILL and chips.cents != account.opener.cents:
            return Refusal(RefusalReason.FILL_NOT_INITIAL_ADVANCE,
                           f"a complementary advance equals the initial advance, {euros(account.opener.cents)}, "
                           f"not {euros(chips.cents)} (arrêté du 14 mai 2007, art. 49)")
        kind = SlipKind.FILL if command == Command.FILL else SlipKind.CREDIT
        return SlipRequested(slip=str(kind), number=seances.slips_issued + 1, chips=chips, by=by)
    if command == Command.SLIP_CONFIRM:
        number = _whole(args.get("number"))
        slip = next((slip for slip in account.pending if slip.number == number), None)
        if slip is None:
            return Refusal(RefusalReason.NO_SUCH_SLIP, f"no slip {args.get('number')!r} waits for confirmation")
        if slip.asked_by.role == role and slip.asked_by.name == by.name:
            return Refusal(RefusalReason.NEEDS_SUPERVISOR,
                           "a slip is confirmed by another role than the one who asked it")
        return SlipConfirmed(number=slip.number, by=by)
    if command == Command.TIP:
        box, cents = _whole(args.get("box")), _whole(args.get("cents"))
        if box is None or not 1 <= box <= boxes:
            return Refusal(RefusalReason.BAD_TIP, f"box {args.get('box')!r} is not a box of this table (1 to {boxes})")
        if cents is None or not 0 < cents <= CENTS_MAX:
            return Refusal(RefusalReason.BAD_TIP,
                           f"a tip is a whole number of cents above 0, not {args.get('cents')!r}")
        return TipReceived(box=box, cents=cents, by=by)
    if command == Command.ORPHAN_CHIPS:
        cents, where = _whole(args.get("cents")), args.get("where", "")
        if cents is None or not 0 < cents <= CENTS_MAX:
            return Refusal(RefusalReason.BAD_AMOUNT,
                           f"orphan chips are a whole number of cents above 0, not {args.get('cents')!r}")
        if not isinstance(where, str) or len(where) > WHERE_MAX:
            return Refusal(RefusalReason.BAD_AMOUNT,
                           f"where the chips were found: text of at most {WHERE_MAX} characters")
        return OrphanChipsFound(cents=cents, where=where, by=by)
    if command == Command.CHANGE:
        return _change(account, args, by, boxes=boxes)
    # IDENTITY_RECORDED {"box": N} or {"player": pseudonym}, "reference": the register's number
    reference, player, box = args.get("reference"), args.get("player", ""), _whole(args.get("box"))
    if not isinstance(reference, str) or REFERENCE.fullmatch(reference) is None or not any(
            character.isdigit() for character in reference):
        return Refusal(RefusalReason.BAD_REFERENCE,
                       "the reference is a register's number (letters, digits, / . -, with a digit; 32 at most), "
                       "never the identity")
    key = player if isinstance(player, str) and is_pseudonym(player) else (
        f"box{box}" if box is not None and 1 <= box <= boxes and not player else "")
    if not key:
        return Refusal(RefusalReason.BAD_REFERENCE,
                       "whose identity: a box of the table, or a rated player by his pseudonym")
    return IdentityRecorded(player=key, reference=reference, by=by)


def _change(account: SeanceAccount, args: Mapping[str, Any], by: Signature, *, boxes: int) -> ChipsChanged | Refusal:
    """CHANGE {"cents": C, "to": "cash" | "chips", "box": N and/or "player": p-…}: a player's chips changed at the
    table; for cash, no more than the drop box's banknotes can pay."""
    cents, to, box, player = _whole(args.get("cents")), args.get("to", ChangeKind.CASH), args.get("box"), \
        args.get("player", "")
    if cents is None or not 0 < cents <= CENTS_MAX:
        return Refusal(RefusalReason.BAD_AMOUNT,
                       f"a change is a whole number of cents above 0, not {args.get('cents')!r}")
    if to not in tuple(ChangeKind):
        return Refusal(RefusalReason.BAD_AMOUNT, f"chips changed for {to!r}: cash or chips")
    if box is not None and (_whole(box) is None or not 1 <= box <= boxes):
        return Refusal(RefusalReason.BAD_AMOUNT, f"box {box!r} is not a box of this table (1 to {boxes})")
    if player and not (isinstance(player, str) and is_pseudonym(player)):
        return Refusal(RefusalReason.BAD_AMOUNT, "a player is named by his card read (a pseudonym p- and 12 hex "
                                                 "digits), never by other text")
    if box is None and not player:
        return Refusal(RefusalReason.BAD_AMOUNT, "whose chips: a box of the table, or a rated player")
    if to == ChangeKind.CASH and cents > account.drop_cash_cents:
        return Refusal(RefusalReason.BAD_AMOUNT,
                       f"the drop box holds {euros(account.drop_cash_cents)} of banknotes, not {euros(cents)}")
    return ChipsChanged(cents=cents, to=str(ChangeKind(to)), box=None if box is None else int(box),
                        player=str(player), by=by)


def seance_text(item: SeanceInput) -> str:
    """One line for the dealer and recall."""
    if isinstance(item, SeanceOpened):
        return f"séance opened: opener {euros(item.opener.cents)} ({item.opener.source})"
    if isinstance(item, SeanceClosed):
        return f"séance closed: closer {euros(item.closer.cents)} ({item.closer.source})"
    if isinstance(item, SlipRequested):
        return f"{item.slip} slip {item.number} asked: {euros(item.chips.cents)}"
    if isinstance(item, SlipConfirmed):
        return f"slip {item.number} confirmed by the {item.by.role}"
    if isinstance(item, TipReceived):
        return f"tip {euros(item.cents)} from box {item.box} into the tronc"
    if isinstance(item, OrphanChipsFound):
        return f"orphan chips {euros(item.cents)} recorded apart" + (f" ({item.where})" if item.where else "")
    if isinstance(item, ChipsChanged):
        where = "" if item.box is None else f" (box {item.box})"
        return f"change {euros(item.cents)} of chips for {item.to}{where}"
    return f"identity of {item.player} recorded: reference {item.reference}"


# -- the journal's codec -----------------------------------------------------------------------------------------
def seance_to_dict(item: SeanceInput) -> dict[str, Any]:
    """The journal body of a séance input (docs/journal.md)."""
    body: dict[str, Any]
    if isinstance(item, SeanceOpened):
        body = {"opener": item.opener.to_json()}
    elif isinstance(item, SeanceClosed):
        body = {"closer": item.closer.to_json()}
    elif isinstance(item, SlipRequested):
        body = {"slip": item.slip, "number": item.number, "chips": item.chips.to_json()}
    elif isinstance(item, SlipConfirmed):
        body = {"number": item.number}
    elif isinstance(item, TipReceived):
        body = {"box": item.box, "cents": item.cents}
    elif isinstance(item, OrphanChipsFound):
        body = {"cents": item.cents, "where": item.where}
    elif isinstance(item, ChipsChanged):
        body = {"cents": item.cents, "to": item.to, **({"box": item.box} if item.box is not None else {}),
                **({"player": item.player} if item.player else {})}
    else:
        body = {"player": item.player, "reference": item.reference}
    return {**body, "by": item.by.to_json(), "type": type(item).__name__, "schema_version": SCHEMA_VERSION}


def seance_from_dict(body: Mapping[str, Any]) -> SeanceInput:
    """The séance input a journal row holds; a `CodecError` naming what is wrong."""
    name = body.get("type")
    try:
        by = Signature.from_json(body["by"])
        if name == "SeanceOpened":
            return SeanceOpened(opener=_count_from_json(body["opener"]), by=by)
        if name == "SeanceClosed":
            return SeanceClosed(closer=_count_from_json(body["closer"]), by=by)
        if name == "SlipRequested":
            return SlipRequested(slip=str(SlipKind(body["slip"])), number=int(body["number"]),
                                 chips=_count_from_json(body["chips"]), by=by)
        if name == "SlipConfirmed":
            return SlipConfirmed(number=int(body["number"]), by=by)
        if name == "TipReceived":
            return TipReceived(box=int(body["box"]), cents=int(body["cents"]), by=by)
        if name == "OrphanChipsFound":
            return OrphanChipsFound(cents=int(body["cents"]), where=str(body.get("where", "")), by=by)
        if name == "ChipsChanged":
            box = body.get("box")
            return ChipsChanged(cents=int(body["cents"]), to=str(ChangeKind(body["to"])),
                                box=None if box is None else int(box), player=str(body.get("player", "")), by=by)
        if name == "IdentityRecorded":
            return IdentityRecorded(player=str(body["player"]), reference=str(body["reference"]), by=by)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise CodecError(f"bad {name} input: {error}") from error
    raise CodecError(f"unknown séance input type {name!r}")

