"""The registers' lines (table_runtime/registers/lines.py), their CSV and their PDF: the carnet of a séance and the
registre of a day add up as art. 69 and CGCT L.2333-55-1 say, and the PDF printed says the same figures."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

import pytest

from table_runtime.registers.csv_text import carnet_csv, registre_csv
from table_runtime.registers.lines import RegisterError, SeanceLine, amount, carnet, registre
from table_runtime.registers.pdf import carnet_pdf, registre_pdf
from tests.table_runtime.registers.pdf_reading import is_a4, pages, words

DAY = dt.date(2026, 12, 2)
NOON = dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC).timestamp()


def figures(seance: int, *, opener: int = 1_500_000, fills: int = 0, credits: int = 0, cash: int = 0,
            markers: int = 0, closer: int | None = 1_500_000, opened_at: float = NOON, seq: int = 10
            ) -> dict[str, Any]:
    win = None if closer is None else closer + credits + cash + markers - opener - fills
    return {"seance": seance, "open": closer is None, "opener_cents": opener, "fills_cents": fills,
            "fills": fills // opener, "credits_cents": credits, "credits": int(credits > 0),
            "drop_cents": cash + markers, "drop_cash_cents": cash, "drop_marker_cents": markers,
            "closer_cents": closer, "tips_cents": 1_500, "tips": 3, "orphans_cents": 200, "win_cents": win,
            "opened_at": opened_at, "closed_at": None if closer is None else opened_at + 3600,
            "head": {"seq": seq, "hash": f"{seq:064x}"}}


def line(table: str, seance: int, **given: Any) -> SeanceLine:
    return SeanceLine.from_figures(table, f"journal-{table}", figures(seance, **given))


def test_the_produit_brut_is_the_takings_less_the_advances() -> None:
    seance = line("T1", 1, fills=1_500_000, credits=40_000, cash=250_000, markers=100_000, closer=2_400_000)
    assert seance.advances_cents == 3_000_000
    assert seance.takings_cents == 2_400_000 + 40_000 + 350_000
    assert seance.win_cents == -210_000
    lines = {entry.label: entry.cents for entry in carnet(seance).lines}
    assert lines["Avance initiale"] == 1_500_000 and lines["Avances complémentaires (1)"] == 1_500_000
    assert lines["Produit brut des jeux (encaisse - avances)"] == -210_000
    assert {entry.cents for entry in carnet(seance).apart} == {1_500, 200}  # tips and orphans: never in the win


def test_figures_whose_win_does_not_add_up_are_refused() -> None:
    wrong = figures(1, closer=1_600_000)
    wrong["win_cents"] += 1
    with pytest.raises(RegisterError, match="win 100001 is not closer"):
        SeanceLine.from_figures("T1", "j", wrong)
    with pytest.raises(RegisterError, match="no journal head"):
        SeanceLine.from_figures("T1", "j", {**figures(1), "head": None})


def test_the_registre_sums_each_tables_closed_seances_of_the_day() -> None:
    seances = [line("T2", 1, closer=1_450_000, cash=80_000, seq=40),
               line("T1", 1, closer=1_600_000, seq=12), line("T1", 2, fills=1_500_000, closer=3_100_000, seq=30),
               line("T1", 3, closer=None, seq=35),  # still open: listed apart
               line("T1", 4, opened_at=NOON + 86_400, seq=50)]  # the next day's
    day = registre(DAY, seances)
    assert [(row.table_id, row.seances, row.head.seq if row.head else None) for row in day.rows] == [
        ("T1", 2, 30), ("T2", 1, 40)]
    t1 = day.rows[0]
    assert (t1.opener_cents, t1.fills_cents, t1.closer_cents, t1.win_cents) == (
        3_000_000, 1_500_000, 4_700_000, 200_000)
    assert day.total.win_cents == 200_000 + 30_000 and day.total.seances == 3 and day.total.head is None
    assert [(s.table_id, s.seance) for s in day.still_open] == [("T1", 3)]
    rows = list(csv.DictReader(io.StringIO(registre_csv(day))))
    assert [(row["table_id"], row["win_cents"], row["head_seq"]) for row in rows] == [
        ("T1", "200000", "30"), ("T2", "30000", "40"), ("Total", "230000", "")]
    assert rows[0]["head_hash"] == f"{30:064x}"


def test_the_carnet_csv_is_a_row_of_cents_with_its_head() -> None:
    seance = line("T1", 2, fills=1_500_000, closer=3_100_000, seq=30)
    [row] = csv.DictReader(io.StringIO(carnet_csv([seance])))
    assert row["opener_cents"] == "1500000" and row["fills_cents"] == "1500000" and row["win_cents"] == "100000"
    assert row["opened_at"] == "2026-12-02T12:00:00+00:00" and (row["head_seq"], row["head_hash"]) == (
        "30", f"{30:064x}")


def test_amounts_are_written_the_french_way() -> None:
    assert amount(123_456_789) == "1 234 567,89" and amount(-5) == "-0,05" and amount(None) == "non comptée"


def test_the_carnet_prints_on_one_a4_page_with_its_figures_and_head() -> None:
    seance = line("T1", 2, fills=1_500_000, credits=40_000, cash=250_000, closer=2_900_000, seq=30)
    [page] = pages(carnet_pdf(carnet(seance), source="le journal de la table T1"))
    assert is_a4(page, landscape=False) and page.inked > 0.01
    text = words(page.text)
    assert "Carnet d'avances (modèle n° 10)" in text and "Table T1 - séance n° 2" in text
    for cents in (1_500_000, 40_000, 250_000, 2_900_000, seance.takings_cents, seance.win_cents):
        assert amount(cents) in text, cents
    assert f"ligne 30 {30:064x}" in text and "Le chef de table" in text and "art. 69" in text


def test_the_registre_prints_landscape_with_its_totals_and_heads() -> None:
    seances = [line("T1", 1, closer=1_600_000, seq=12), line("T2", 1, closer=1_450_000, cash=80_000, seq=40)]
    [page] = pages(registre_pdf(registre(DAY, seances), source="le registre du casino"))
    assert is_a4(page, landscape=True) and page.inked > 0.01
    text = words(page.text)
    assert "Registre de contrôle (modèle n° 12)" in text and "Journée du 2026-12-02" in text
    assert f"T1 1 {amount(1_500_000)} {amount(0)} {amount(1_600_000)} {amount(1_600_000)} {amount(100_000)}" in text
    assert f"Total 2 {amount(3_000_000)}" in text and amount(130_000) in text
    assert f"ligne 40 {40:064x}" in text and "Un membre du comité de direction" in text


def test_a_name_past_latin_1_prints_as_a_question_mark() -> None:
    seance = line("Table€", 1)
    [page] = pages(carnet_pdf(carnet(seance), source="le journal"))
    assert "Table Table? - séance" in words(page.text)


def test_many_tables_run_onto_more_pages() -> None:
    seances = [line(f"T{number:02d}", 1, seq=number) for number in range(60)]
    printed = pages(registre_pdf(registre(DAY, seances), source="le registre du casino"))
    assert len(printed) >= 2 and all(page.inked > 0.001 for page in printed)
    assert "T59" in words(" ".join(page.text for page in printed))
