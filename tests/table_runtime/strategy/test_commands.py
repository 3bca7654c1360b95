"""`table-runtime strategy` and `table-runtime house-edge` through the real CLI parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_runtime.cli import main


def test_house_edge_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["house-edge", "--profile", "fr-casino", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"profile", "house_edge", "dealer_bust_by_upcard", "surrender", "bank_final_result",
                             "hyper_blackjack"}
    assert document["profile"] == "fr-casino"
    assert 0.004 < document["house_edge"] < 0.006
    bust = document["dealer_bust_by_upcard"]
    assert list(bust) == ["2", "3", "4", "5", "6", "7", "8", "9", "T", "A"]
    assert bust["6"] == pytest.approx(0.4228, abs=5e-4)
    assert bust["A"] == pytest.approx(0.1155, abs=5e-4)


def test_house_edge_text_shows_the_bank_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["house-edge", "--profile", "online"]) == 0
    out = capsys.readouterr().out
    assert "profile online: house edge" in out
    assert out.count("%") > 70  # 10 up cards x 7 outcomes + EVs


def test_strategy_prints_the_chart_rows_and_legend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", "--profile", "fr-casino"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "        2  3  4  5  6  7  8  9  T  A" in lines
    assert "   11   D  D  D  D  D  D  D  D  H  H" in lines  # no hole card: 11 hits a ten
    assert "  A,7   S Ds Ds Ds Ds  S  S  H  H  H" in lines
    assert "  8,8   P  P  P  P  P  P  P  P  H  H" in lines
    assert "  A,A   P  P  P  P  P  P  P  P  P  H" in lines
    assert any(line.startswith("H hit, S stand") for line in lines)


def test_rules_file_overrides_a_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text('[rules]\nprofile = "fr-casino"\ndealer_hits_soft_17 = true\n', encoding="utf-8")
    assert main(["house-edge", "--rules", str(rules), "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert main(["house-edge", "--profile", "fr-casino", "--json"]) == 0
    stands = json.loads(capsys.readouterr().out)
    assert hits["profile"] == str(rules)
    assert hits["house_edge"] - stands["house_edge"] == pytest.approx(0.002, abs=5e-4)
    assert hits["dealer_bust_by_upcard"]["6"] > stands["dealer_bust_by_upcard"]["6"]


def test_a_bad_rules_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "bad.toml"
    rules.write_text('[rules]\ndouble_on = "always"\n', encoding="utf-8")
    assert main(["strategy", "--rules", str(rules)]) == 2
    assert "rules.double_on" in capsys.readouterr().err


def test_fr_2020_json_has_surrender_the_bank_s_final_result_and_each_hyper_case(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["house-edge", "--profile", "fr-2020", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    surrender = document["surrender"]
    assert surrender["offered"] is True
    assert document["house_edge"] == surrender["house_edge_with"]  # 55-4 1°: on in fr-2020
    assert surrender["house_edge_without"] - surrender["house_edge_with"] > 0.002
    final = document["bank_final_result"]
    assert list(final) == ["17", "18", "19", "20", "21", "blackjack", "bust"]
    assert sum(final.values()) == pytest.approx(1.0, abs=1e-12)
    hyper = document["hyper_blackjack"]
    assert hyper["offered"] is True
    assert [case["pays"] for case in hyper["cases"].values()] == [4, 5, 5, 4, 10, 19, 2]  # 55-4 6°
    for name, case in hyper["cases"].items():
        assert case["probability"] == final[name]
        assert case["ev"] == pytest.approx(final[name] * (case["pays"] + 1) - 1, abs=1e-12)


def test_fr_2020_text_and_chart_show_surrender_and_the_hyper_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["house-edge", "--profile", "fr-2020"]) == 0
    out = capsys.readouterr().out
    assert "surrender (55-4 1°) offered: house edge" in out
    assert "hyper black jack (55-4 6°, offered)" in out
    assert any(line.split()[:3] == ["BLACK", "JACK", "4.749%"] for line in out.splitlines())
    assert main(["strategy", "--profile", "fr-2020"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "   16   S  S  S  S  S  H  H Rh Rh  H" in lines
    assert "  8,8   P  P  P  P  P  P  P  P Rh  H" in lines
    assert any(line.startswith("Rh surrender (else hit)") for line in lines)
