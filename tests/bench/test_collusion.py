"""The collusion bench prints one line per kind of dealer in its format, and flags the colluding pairs far more often
than the honest ones (a few pairs: the figures at 1,000 pairs per kind are bench/README.md's)."""

from __future__ import annotations

import re

import pytest

from bench.collusion import KINDS, main

LINE = re.compile(r"collusion dealer=(\w+) colluding=(yes|no) pairs=(\d+) flagged_500=([01]\.\d{4})")


def test_the_bench_prints_a_line_per_kind_and_flags_the_colluders(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--pairs", "20", "--dealers-per-floor", "10", "--extra-rounds", "100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rates = {(match[1], match[2]): (int(match[3]), float(match[4]))
             for line in lines if (match := LINE.fullmatch(line))}
    assert set(rates) == {(kind.name, "yes" if kind.colluding else "no") for kind in KINDS} | {("colluding", "no")}
    assert all(pairs == 20 for key, (pairs, _) in rates.items() if key != ("colluding", "no"))
    assert rates[("colluding", "yes")][1] >= 0.8
    assert max(rate for key, (_, rate) in rates.items() if key[1] == "no") <= 0.05
    assert lines[-1].startswith("command: python -m bench.collusion --pairs 20")
