"""`table-runtime accounts --carnet/--registre`: the registers of a table's séances from its journal alone. The
figures the PDF and the CSV print are `accounts --json`'s, and the journal head they carry is a row of the journal
(its SeanceUpdated event of that séance, its hash the chain's), in a journal that verifies."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from table_runtime.cli import main
from table_runtime.journal import Journal, journal_path
from table_runtime.registers.lines import amount, day_of
from tests.table_runtime.registers.pdf_reading import is_a4, pages, words


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table's data directory: the fast demo's 12 rounds in 3 séances."""
    data = tmp_path_factory.mktemp("table")
    assert main(["demo", "--fast", "--rounds", "12", "--seance-rounds", "4", "--data-dir", str(data)]) == 0
    return data


def accounts(table: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["accounts", "--data-dir", str(table), "--json"]) == 0
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    return found


def check_head(table: Path, seq: int, digest: str, seance: int | None) -> None:
    with Journal.open(journal_path(table)) as journal:
        [row] = journal.entries(seq - 1, limit=1)
        assert journal.verify().ok
    assert row.seq == seq and row.hash == digest
    assert row.kind == "event" and row.body["type"] == "SeanceUpdated"
    if seance is not None:
        assert row.body["seance"] == seance


def test_each_seance_of_accounts_json_says_when_it_ran_and_its_head(table: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    found = accounts(table, capsys)
    assert [seance["seance"] for seance in found["seances"]] == [1, 2, 3]
    for seance in found["seances"]:
        assert seance["opened_at"] < seance["closed_at"]
        check_head(table, seance["head"]["seq"], seance["head"]["hash"], seance["seance"])
    with Journal.open(journal_path(table)) as journal:
        [closing] = journal.entries(found["seances"][2]["head"]["seq"] - 1, limit=1)
    assert closing.body["action"] == "closed" and closing.body["win_cents"] == found["seances"][2]["win_cents"]


def test_the_carnet_prints_the_seances_figures_and_its_head(table: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    seance = accounts(table, capsys)["seances"][1]
    pdf, text = tmp_path / "carnet.pdf", tmp_path / "carnet.csv"
    assert main(["accounts", "--data-dir", str(table), "--carnet", "2", "--pdf", str(pdf), "--csv", str(text)]) == 0
    assert "carnet d'avances of séance 2" in capsys.readouterr().out
    [row] = csv.DictReader(text.open(encoding="utf-8"))
    for key in ("opener_cents", "fills_cents", "credits_cents", "drop_cents", "closer_cents", "tips_cents",
                "win_cents"):
        assert int(row[key]) == seance[key], key
    assert int(row["takings_cents"]) - int(row["advances_cents"]) == seance["win_cents"]
    check_head(table, int(row["head_seq"]), row["head_hash"], 2)
    [page] = pages(pdf.read_bytes())
    assert is_a4(page, landscape=False) and page.inked > 0.01
    printed = words(page.text)
    for key in ("opener_cents", "fills_cents", "closer_cents", "drop_cash_cents", "tips_cents", "win_cents"):
        assert amount(seance[key]) in printed, key
    assert f"ligne {row['head_seq']} {row['head_hash']}" in printed


def test_the_registre_of_the_day_sums_the_seances(table: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    seances = accounts(table, capsys)["seances"]
    day = day_of(seances[0]["opened_at"]).isoformat()
    of_day = [seance for seance in seances if day_of(seance["opened_at"]).isoformat() == day]
    pdf, text = tmp_path / "registre.pdf", tmp_path / "registre.csv"
    assert main(["accounts", "--data-dir", str(table), "--registre", day, "--pdf", str(pdf), "--csv", str(text)]) == 0
    rows = list(csv.DictReader(text.open(encoding="utf-8")))
    assert [row["table_id"] for row in rows] == ["DEMO1", "Total"]
    table_row, total = rows
    for key in ("opener_cents", "fills_cents", "credits_cents", "drop_cents", "closer_cents", "win_cents"):
        assert int(table_row[key]) == int(total[key]) == sum(seance[key] for seance in of_day), key
    assert int(table_row["seances"]) == len(of_day)
    check_head(table, int(table_row["head_seq"]), table_row["head_hash"], of_day[-1]["seance"])
    [page] = pages(pdf.read_bytes())
    assert is_a4(page, landscape=True) and page.inked > 0.01
    printed = words(page.text)
    assert f"Total {len(of_day)} {amount(int(total['opener_cents']))}" in printed
    assert amount(int(total["win_cents"])) in printed and table_row["head_hash"] in printed


@pytest.mark.parametrize(("args", "says"), [
    (["--carnet", "9", "--pdf", "x.pdf"], "séance 9: the journal holds séances 1 to 3"),
    (["--registre", "2026-13-01", "--csv", "x.csv"], "a day is written YYYY-MM-DD"),
    (["--carnet", "1"], "write --pdf FILE and/or --csv FILE"),
    (["--pdf", "x.pdf"], "name it, --carnet SEANCE or --registre DAY"),
])
def test_a_register_asked_wrong_is_one_line(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            args: list[str], says: str) -> None:
    capsys.readouterr()
    files = [str(tmp_path / arg) if arg.endswith((".pdf", ".csv")) else arg for arg in args]
    assert main(["accounts", "--data-dir", str(table), *files]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())
