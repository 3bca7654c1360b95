"""`python -m bench.rating` prints the line the issue asks for, one per kind, and refuses bad arguments."""

from __future__ import annotations

import re

import pytest

from bench.rating import main

LINE = re.compile(r"rating player=(\w+) counter=(yes|no) sessions=(\d+) flagged_100=([01]\.\d{3}) "
                  r"flagged_300=([01]\.\d{3}) flagged_1000=([01]\.\d{3}) theo_error_pct=(-?[\d.]+|inf)$")


def test_one_line_per_kind_with_the_flagged_fractions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sessions", "2", "--rounds", "300", "--workers", "1", "--kinds", "flat,counter",
                 "--cost-samples", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    found = {match.group(1): match for match in map(LINE.match, lines) if match}
    assert set(found) == {"flat", "counter"}
    assert found["counter"].group(2) == "yes" and found["flat"].group(2) == "no"
    assert found["counter"].group(3) == found["flat"].group(3) == "2"
    assert float(found["counter"].group(5)) == 1.0 and float(found["flat"].group(6)) == 0.0
    assert lines[-1] == ("# command: python -m bench.rating --sessions 2 --rounds 300 --workers 1 "
                         "--kinds flat,counter --cost-samples 2")


def test_an_unknown_kind_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--kinds", "flat,gambler"]) == 2
    assert capsys.readouterr().err == ("rating: unknown kinds ['gambler']; known: flat, counter, cover, wonger, "
                                       "chaser, hyper, hyperfan\n")


def test_the_hyper_players_need_a_profile_with_the_hyper_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--kinds", "flat,hyper", "--sessions", "1"]) == 2
    assert capsys.readouterr().err == ("rating: hyper bet the hyper field: give a profile with hyper_blackjack "
                                       "(--profile fr-2020)\n")
    assert main(["--profile", "fr-2020", "--kinds", "hyper", "--sessions", "2", "--rounds", "100", "--workers", "1",
                 "--cost-samples", "2"]) == 0
    (line,) = [found for found in map(LINE.match, capsys.readouterr().out.splitlines()) if found]
    assert line.group(1) == "hyper" and line.group(2) == "yes" and float(line.group(4)) == 1.0


def test_an_unknown_score_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--scores", "bet_count,luck", "--sessions", "1"]) == 2
    assert capsys.readouterr().err == ("rating: unknown scores ['luck']; known: bet_count, wonging, index_plays, "
                                       "hyper_blackjack\n")
