"""The registers as printable PDF: A4, in French, with fpdf2 (README "Dependencies").

fpdf2 is pure Python, maintained, and needs no system library, so the same document is made on a table's Pi and on
the floor's server. The text is set in the PDF's core font Helvetica, which every reader has and which the file
need not embed: it covers Latin-1 (é, è, à, ç, «, », °), all French needs but for the euro sign, so amounts are
headed « en euros » and the journal's hashes are set in Courier. A character past Latin-1 (a table's name) prints
as « ? » rather than failing the register.

`carnet_pdf` and `registre_pdf` return the file's bytes; each page names its journal heads (seq and hash), the
text it follows (arrêté du 14 mai 2007, art. 69) and has the lines for the signatures.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from table_runtime.registers.lines import (
    CARNET_TITLE,
    REGISTRE_TITLE,
    RULE,
    Carnet,
    JournalHead,
    Registre,
    amount,
    when,
)

FONT: Final = "Helvetica"
MONO: Final = "Courier"
LINE_MM: Final = 7.0


def latin1(text: str) -> str:
    """What the core fonts can set: Latin-1, the rest as « ? »."""
    return text.encode("latin-1", "replace").decode("latin-1")


class _Page(FPDF):  # type: ignore[misc]  # fpdf2 ships no type hints
    """An A4 document with the register's footer: its source and the page number."""

    def __init__(self, *, orientation: str, source: str) -> None:
        super().__init__(orientation=orientation, unit="mm", format="A4")
        self.source = source
        self.set_margins(15, 15, 15)
        self.set_auto_page_break(auto=True, margin=18)
        # A fixed creation date: the same figures make the same file (the date made is printed on the page).
        self.set_creation_date(dt.datetime(2007, 5, 14, tzinfo=dt.UTC))
        self.set_title(latin1(source))

    def footer(self) -> None:
        self.set_y(-13)
        self.set_font(FONT, size=7)
        self.cell(0, 5, latin1(f"{RULE}. Établi d'après {self.source}. Page {self.page_no()}/{{nb}}"),
                  align="C")

    def write_line(self, text: str, *, size: float = 10, style: str = "", font: str = FONT,
                   height: float = 5.5) -> None:
        self.set_font(font, style=style, size=size)
        self.multi_cell(0, height, latin1(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def signatures(self, roles: tuple[str, ...]) -> None:
        """A box per role: the name, the signature, the date."""
        self.ln(6)
        width = (self.epw - 10 * (len(roles) - 1)) / len(roles)
        top = self.get_y()
        if top + 32 > self.page_break_trigger:
            self.add_page()
            top = self.get_y()
        for index, role in enumerate(roles):
            left = self.l_margin + index * (width + 10)
            self.rect(left, top, width, 30)
            self.set_xy(left + 2, top + 2)
            self.set_font(FONT, style="B", size=9)
            self.cell(width - 4, 5, latin1(role))
            self.set_xy(left + 2, top + 9)
            self.set_font(FONT, size=8)
            self.cell(width - 4, 5, latin1("Nom :"))
            self.set_xy(left + 2, top + 23)
            self.cell(width - 4, 5, latin1("Signature et date :"))
        self.set_xy(self.l_margin, top + 32)

    def heads(self, heads: list[JournalHead]) -> None:
        self.write_line("Têtes des journaux (la dernière ligne lue de chaque journal : numéro et empreinte "
                        "SHA-256 de la chaîne) :", size=8, style="B")
        for head in heads:
            self.write_line(f"{head.table_id}  journal {head.journal}  ligne {head.seq}", size=7, font=MONO,
                            height=3.8)
            self.write_line(f"    {head.hash}", size=7, font=MONO, height=3.8)


def _bytes(pdf: FPDF) -> bytes:
    return bytes(pdf.output())


def carnet_pdf(page: Carnet, *, source: str) -> bytes:
    """The carnet d'avances of one séance (A4 portrait), made from `source` (« le journal de la table T1 »)."""
    seance = page.seance
    pdf = _Page(orientation="portrait", source=source)
    pdf.add_page()
    pdf.write_line(CARNET_TITLE, size=16, style="B", height=8)
    pdf.write_line(f"Table {seance.table_id} - séance n° {seance.seance}", size=12, style="B", height=7)
    pdf.write_line(f"Ouverte le {when(seance.opened_at)} ; close le {when(seance.closed_at)}"
                   + (" (séance ouverte : encaisse non comptée)" if seance.open else ""))
    pdf.write_line(f"Journal {seance.journal}", size=8)
    pdf.ln(3)
    pdf.set_font(FONT, style="B", size=9)
    pdf.cell(130, LINE_MM, latin1("Avances et encaisse de la séance"), border=1)
    pdf.cell(0, LINE_MM, latin1("en euros"), border=1, align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    for line in page.lines:
        pdf.set_font(FONT, style="B" if line.total else "", size=10)
        pdf.cell(130, LINE_MM, latin1(line.label), border=1)
        pdf.cell(0, LINE_MM, latin1(amount(line.cents)), border=1, align="R", new_x=XPos.LMARGIN,
                 new_y=YPos.NEXT)
    pdf.ln(3)
    for line in page.apart:
        pdf.set_font(FONT, size=9)
        pdf.cell(130, 6, latin1(line.label), border=1)
        pdf.cell(0, 6, latin1(amount(line.cents)), border=1, align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(4)
    pdf.heads([seance.head])
    pdf.signatures(page.signatures)
    return _bytes(pdf)


REGISTRE_COLUMNS: Final = (("Table", 26.0), ("Séances", 16.0), ("Avances initiales", 32.0),
                           ("Avances complémentaires", 38.0), ("Encaisse comptée", 32.0), ("dont plateau", 28.0),
                           ("Produit brut des jeux", 36.0), ("Pourboires (tronc)", 30.0), ("Tête : ligne", 0.0))


def registre_pdf(register: Registre, *, source: str) -> bytes:
    """The registre de contrôle of a day (A4 landscape): a row per table, the day's total, the journal heads, the
    séances still open (not in it) and the day's signatures."""
    pdf = _Page(orientation="landscape", source=source)
    pdf.add_page()
    pdf.write_line(REGISTRE_TITLE, size=16, style="B", height=8)
    pdf.write_line(f"Journée du {register.day.isoformat()} (séances ouvertes ce jour, UTC) - montants en euros",
                   size=11, style="B", height=7)
    pdf.ln(2)

    def row(cells: list[str], *, style: str = "", size: float = 9) -> None:
        pdf.set_font(FONT, style=style, size=size)
        for index, ((_, width), text) in enumerate(zip(REGISTRE_COLUMNS, cells, strict=True)):
            last = index == len(REGISTRE_COLUMNS) - 1
            pdf.cell(width, LINE_MM, latin1(text), border=1, align="L" if index == 0 else "R",
                     new_x=XPos.LMARGIN if last else XPos.RIGHT, new_y=YPos.NEXT if last else YPos.TOP)

    row([name for name, _ in REGISTRE_COLUMNS], style="B", size=8)
    for line in (*register.rows, register.total):
        row([line.table_id, str(line.seances), amount(line.opener_cents), amount(line.fills_cents),
             amount(line.takings_cents), amount(line.closer_cents), amount(line.win_cents), amount(line.tips_cents),
             "" if line.head is None else str(line.head.seq)], style="B" if line.head is None else "")
    pdf.ln(3)
    if register.still_open:
        pdf.write_line("Séances ouvertes, hors registre jusqu'à leur clôture : " + ", ".join(
            f"{seance.table_id} n° {seance.seance}" for seance in register.still_open), size=9)
    if not register.rows:
        pdf.write_line("Aucune séance close ce jour.", size=9)
    pdf.write_line(f"Arrêté le présent registre à la somme de {amount(register.total.win_cents)} euros de produit "
                   f"brut des jeux pour {register.total.seances} séance(s).", size=10, style="B")
    pdf.ln(2)
    pdf.heads([line.head for line in register.rows if line.head is not None])
    pdf.signatures(register.signatures)
    return _bytes(pdf)
