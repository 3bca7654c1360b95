"""The registers' lines: the carnet d'avances of a séance and the registre de contrôle of a day, from séance figures.

Arrêté du 14 mai 2007, art. 69 (as replaced in 2009): for each table and séance, the initial advance, the
complementary advances and the takings counted at the end of the séance go in the **carnet d'avances (modèle
n° 10)**; they are summed per table in the **registre de contrôle (modèle n° 12)**, totalled and signed at the end
of each day. The produit brut des jeux of a table (CGCT L.2333-55-1) is the takings counted at the end less the
initial and complementary advances: takings = the tray's closing count + the chips sent back to the cash desk
during the séance (credits) + the drop box (banknotes and markers), so PBJ = closer + credits + drop − opener −
fills, the table's `win_cents` (core/seance.py). Tips (the tronc) and orphan chips are never in it.

The same lines whoever made the figures: the table's fold (`table-runtime accounts`) or the floor's store
(`table-floor query seances`); each séance carries the journal head its figures were made from (the journal's
newest SeanceUpdated row of that séance: its seq and hash), so anyone can check a register against the record.
Pure: no I/O, no clock. docs/accounts.md "The registers".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from table_runtime.errors import TableError

CARNET_TITLE: Final = "Carnet d'avances (modèle n° 10)"
REGISTRE_TITLE: Final = "Registre de contrôle (modèle n° 12)"
RULE: Final = "arrêté du 14 mai 2007, art. 69 ; CGCT art. L.2333-55-1"
REGISTER_KEYS: Final = ("seance", "open", "opener_cents", "fills_cents", "fills", "credits_cents", "credits",
                        "drop_cents", "drop_cash_cents", "drop_marker_cents", "closer_cents", "tips_cents", "tips",
                        "orphans_cents", "win_cents")
"""The figures of a séance that the registers read, the same in `accounts --json` and `query seances`."""
DAY_SIGNATURES: Final = ("Le directeur responsable", "Un membre du comité de direction")
SEANCE_SIGNATURES: Final = ("Le chef de table", "Le caissier")


class RegisterError(TableError, ValueError):
    """Séance figures a register cannot be made from (a key missing, or a win that is not closer + credits + drop −
    opener − fills)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalHead:
    """The newest journal row a register's figures were made from: `seq` and its chain `hash`."""

    table_id: str
    journal: str
    seq: int
    hash: str

    def to_json(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "journal": self.journal, "seq": self.seq, "hash": self.hash}


def _cents(figures: Mapping[str, Any], key: str) -> int:
    value = figures.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RegisterError(f"séance {figures.get('seance')}: {key} is {value!r}, not a whole number of cents")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class SeanceLine:
    """One séance of one table as the registers read it, in cents, with the head its figures came from."""

    table_id: str
    journal: str
    seance: int
    opened_at: float  # seconds since the epoch (the journal row of its opening)
    closed_at: float | None
    opener_cents: int
    fills_cents: int
    fills: int
    credits_cents: int
    credits: int
    drop_cash_cents: int
    drop_marker_cents: int
    closer_cents: int | None
    tips_cents: int
    tips: int
    orphans_cents: int
    head: JournalHead

    @classmethod
    def from_figures(cls, table_id: str, journal: str, figures: Mapping[str, Any]) -> SeanceLine:
        """From a séance of `accounts --json` or a row of `query seances` (its `opened_at`, `closed_at` and
        `head` {seq, hash} beside the figures); `RegisterError` if the figures do not add up."""
        head = figures.get("head")
        if not isinstance(head, Mapping) or not isinstance(head.get("hash"), str):
            raise RegisterError(f"séance {figures.get('seance')}: no journal head (seq and hash)")
        opened_at, closed_at = figures.get("opened_at"), figures.get("closed_at")
        if not isinstance(opened_at, (int, float)) or not (closed_at is None or isinstance(closed_at, (int, float))):
            raise RegisterError(f"séance {figures.get('seance')}: no time of opening")
        closer = None if figures.get("closer_cents") is None else _cents(figures, "closer_cents")
        line = cls(table_id=table_id, journal=journal, seance=_cents(figures, "seance"), opened_at=float(opened_at),
                   closed_at=None if closed_at is None else float(closed_at),
                   opener_cents=_cents(figures, "opener_cents"), fills_cents=_cents(figures, "fills_cents"),
                   fills=_cents(figures, "fills"), credits_cents=_cents(figures, "credits_cents"),
                   credits=_cents(figures, "credits"), drop_cash_cents=_cents(figures, "drop_cash_cents"),
                   drop_marker_cents=_cents(figures, "drop_marker_cents"), closer_cents=closer,
                   tips_cents=_cents(figures, "tips_cents"), tips=_cents(figures, "tips"),
                   orphans_cents=_cents(figures, "orphans_cents"),
                   head=JournalHead(table_id=table_id, journal=journal, seq=_cents(head, "seq"),
                                    hash=str(head["hash"])))
        if figures.get("win_cents") != line.win_cents:
            raise RegisterError(f"séance {line.seance} of {table_id}: win {figures.get('win_cents')} is not closer "
                                f"+ credits + drop − opener − fills = {line.win_cents} ({RULE})")
        return line

    @property
    def open(self) -> bool:
        return self.closer_cents is None

    @property
    def drop_cents(self) -> int:
        return self.drop_cash_cents + self.drop_marker_cents

    @property
    def advances_cents(self) -> int:
        """The initial advance and the complementary advances (art. 49)."""
        return self.opener_cents + self.fills_cents

    @property
    def takings_cents(self) -> int | None:
        """The takings counted at the end of the séance: the tray, the chips sent back, the drop box."""
        return None if self.closer_cents is None else self.closer_cents + self.credits_cents + self.drop_cents

    @property
    def win_cents(self) -> int | None:
        """The produit brut des jeux: takings − advances (CGCT L.2333-55-1)."""
        takings = self.takings_cents
        return None if takings is None else takings - self.advances_cents

    @property
    def day(self) -> dt.date:
        """The day whose registre holds the séance: the day (UTC) it opened."""
        return day_of(self.opened_at)

    def figures(self) -> dict[str, Any]:
        """The `REGISTER_KEYS` figures (what `accounts --json` and `query seances` both say)."""
        return {"seance": self.seance, "open": self.open, "opener_cents": self.opener_cents,
                "fills_cents": self.fills_cents, "fills": self.fills, "credits_cents": self.credits_cents,
                "credits": self.credits, "drop_cents": self.drop_cents, "drop_cash_cents": self.drop_cash_cents,
                "drop_marker_cents": self.drop_marker_cents, "closer_cents": self.closer_cents,
                "tips_cents": self.tips_cents, "tips": self.tips, "orphans_cents": self.orphans_cents,
                "win_cents": self.win_cents}


def seance_lines(accounts: Mapping[str, Any]) -> list[SeanceLine]:
    """The séances of `table-runtime accounts --json` (`runtime/accounts.py`), as the registers read them."""
    return [SeanceLine.from_figures(str(accounts["table_id"]), str(accounts["journal_id"]), seance)
            for seance in accounts["seances"]]


def day_of(ts: float) -> dt.date:
    return dt.datetime.fromtimestamp(ts, dt.UTC).date()


def day_bounds(day: dt.date) -> tuple[float, float]:
    """[start, end) of a day (UTC) in seconds since the epoch."""
    start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    return start.timestamp(), (start + dt.timedelta(days=1)).timestamp()


def parse_day(text: str) -> dt.date:
    """A day as ``YYYY-MM-DD``; `RegisterError` with one line otherwise."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise RegisterError(f"{text!r}: a day is written YYYY-MM-DD (the séances opened that day, UTC)") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class CarnetLine:
    """One line of the carnet: its label, its amount in cents, and whether it is a total."""

    label: str
    cents: int | None
    total: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Carnet:
    """The carnet d'avances of one séance (modèle n° 10): its advances, its takings and its produit brut, then
    what is never takings, and the journal head."""

    seance: SeanceLine
    lines: tuple[CarnetLine, ...]
    apart: tuple[CarnetLine, ...]
    signatures: tuple[str, ...] = SEANCE_SIGNATURES


def carnet(seance: SeanceLine) -> Carnet:
    """The carnet d'avances of `seance` (an open séance has no takings yet: its lines say « non comptée »)."""
    lines = (
        CarnetLine(label="Avance initiale", cents=seance.opener_cents),
        CarnetLine(label=f"Avances complémentaires ({seance.fills})", cents=seance.fills_cents),
        CarnetLine(label="Total des avances", cents=seance.advances_cents, total=True),
        CarnetLine(label="Encaisse : jetons et plaques au plateau en fin de séance", cents=seance.closer_cents),
        CarnetLine(label=f"Encaisse : jetons rendus à la caisse ({seance.credits})", cents=seance.credits_cents),
        CarnetLine(label="Encaisse : billets (caisse à billets)", cents=seance.drop_cash_cents),
        CarnetLine(label="Encaisse : marqueurs", cents=seance.drop_marker_cents),
        CarnetLine(label="Total de l'encaisse comptée en fin de séance", cents=seance.takings_cents, total=True),
        CarnetLine(label="Produit brut des jeux (encaisse - avances)", cents=seance.win_cents, total=True),
    )
    apart = (CarnetLine(label="Pourboires (tronc), hors produit", cents=seance.tips_cents),
             CarnetLine(label="Jetons orphelins, hors produit", cents=seance.orphans_cents))
    return Carnet(seance=seance, lines=lines, apart=apart)


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistreRow:
    """One table's (and journal's) séances of the day, summed: the registre's row, with its journal head."""

    table_id: str
    journal: str
    seances: int
    opener_cents: int
    fills_cents: int
    credits_cents: int
    drop_cents: int
    closer_cents: int
    takings_cents: int
    win_cents: int
    tips_cents: int
    head: JournalHead | None  # None only for the total

    def to_json(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "journal": self.journal, "seances": self.seances,
                "opener_cents": self.opener_cents, "fills_cents": self.fills_cents,
                "credits_cents": self.credits_cents, "drop_cents": self.drop_cents,
                "closer_cents": self.closer_cents, "takings_cents": self.takings_cents, "win_cents": self.win_cents,
                "tips_cents": self.tips_cents,
                "head_seq": None if self.head is None else self.head.seq,
                "head_hash": None if self.head is None else self.head.hash}


@dataclass(frozen=True, slots=True, kw_only=True)
class Registre:
    """The registre de contrôle of a day (modèle n° 12): a row per table of its closed séances summed, the day's
    total, the séances still open (not in it) and the lines for the day's signatures."""

    day: dt.date
    rows: tuple[RegistreRow, ...]
    total: RegistreRow
    still_open: tuple[SeanceLine, ...]
    signatures: tuple[str, ...] = DAY_SIGNATURES


def _summed(table_id: str, journal: str, seances: list[SeanceLine], head: JournalHead | None) -> RegistreRow:
    return RegistreRow(
        table_id=table_id, journal=journal, seances=len(seances),
        opener_cents=sum(s.opener_cents for s in seances), fills_cents=sum(s.fills_cents for s in seances),
        credits_cents=sum(s.credits_cents for s in seances), drop_cents=sum(s.drop_cents for s in seances),
        closer_cents=sum(s.closer_cents or 0 for s in seances),
        takings_cents=sum(s.takings_cents or 0 for s in seances), win_cents=sum(s.win_cents or 0 for s in seances),
        tips_cents=sum(s.tips_cents for s in seances), head=head)


def registre(day: dt.date, seances: Iterable[SeanceLine]) -> Registre:
    """The registre de contrôle of `day` from the séances opened that day (others are left out): the closed ones
    summed per table, in table order; the open ones listed apart."""
    of_day = sorted((s for s in seances if s.day == day), key=lambda s: (s.table_id, s.journal, s.seance))
    closed = [s for s in of_day if not s.open]
    tables: dict[tuple[str, str], list[SeanceLine]] = {}
    for seance in closed:
        tables.setdefault((seance.table_id, seance.journal), []).append(seance)
    rows = tuple(_summed(table_id, journal, lines, max((s.head for s in lines), key=lambda head: head.seq))
                 for (table_id, journal), lines in tables.items())
    return Registre(day=day, rows=rows, total=_summed("Total", "", closed, None),
                    still_open=tuple(s for s in of_day if s.open))


def amount(cents: int | None) -> str:
    """An amount in euros the French way, ``-1 234,50`` (« non comptée » for a count not made yet)."""
    if cents is None:
        return "non comptée"
    sign = "-" if cents < 0 else ""
    euros, rest = divmod(abs(cents), 100)
    return f"{sign}{euros:,}".replace(",", " ") + f",{rest:02d}"


def when(ts: float | None) -> str:
    """A time the registers print: ``2026-12-02 18:42 UTC``."""
    if ts is None:
        return "en cours"
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
