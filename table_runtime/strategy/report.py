"""Text and JSON renderings of a strategy and its house edge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from table_runtime.game.hyper import ODDS, HyperCase
from table_runtime.strategy.chart import UP_VALUES, Strategy
from table_runtime.strategy.final_result import hyper_ev
from table_runtime.strategy.solver import Solution

LEGEND = (
    "H hit, S stand, D double (else hit), Ds double (else stand), P split",
)
SURRENDER_LEGEND = ("Rh surrender (else hit), Rs surrender (else stand), Rp surrender (else split): "
                    "the first two cards of an unsplit hand, never against an ace (55-4 1°)")


def up_label(value: int) -> str:
    return {1: "A", 10: "T"}.get(value, str(value))


def chart_lines(strategy: Strategy) -> list[str]:
    """The chart: hard 5-21, soft 13-21 and pairs, by bank card 2..9, T, A."""
    header = "       " + " ".join(f"{up_label(up):>2}" for up in UP_VALUES)
    lines = ["Hard", header]
    for total in range(5, 22):
        lines.append(f"{total:>5}  " + " ".join(f"{strategy.letter(total, False, up):>2}" for up in UP_VALUES))
    lines += ["", "Soft", header]
    for total in range(13, 22):
        row = " ".join(f"{strategy.letter(total, True, up):>2}" for up in UP_VALUES)
        lines.append(f"  A,{up_label(total - 11):<2} " + row)
    lines += ["", "Pairs", header]
    if strategy.terms.max_hands < 2:
        lines.append("  (the rules allow no split)")
    for pair in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
        label = up_label(pair)
        cells = []
        total, soft = (12, True) if pair == 1 else (2 * pair, False)
        for up in UP_VALUES:
            plain = "P" if strategy.splits(pair, up) else strategy.letter(total, soft, up, surrender=False)
            cells.append("R" + plain[0].lower() if strategy.pair_surrenders(pair, up) else plain)
        lines.append(f"  {label},{label:<2} " + " ".join(f"{cell:>2}" for cell in cells))
    lines += ["", *LEGEND]
    if strategy.terms.surrender:
        lines.append(SURRENDER_LEGEND)
    return lines


@dataclass(frozen=True, slots=True)
class EdgeFigures:
    """What `house-edge` reports for one rule set: the game's solution, the edge with and without
    surrender (55-4 1°), the bank's final result off the top and each hyper case's EV (55-4 6°)."""

    name: str
    solution: Solution  # the rules as they are
    with_surrender: Solution
    without_surrender: Solution
    final_result: dict[HyperCase, float]
    hyper_offered: bool

    @property
    def hyper_ev(self) -> dict[HyperCase, float]:
        return hyper_ev(self.final_result)


def house_edge_document(figures: EdgeFigures) -> dict[str, Any]:
    solution = figures.solution
    evs = figures.hyper_ev
    return {
        "profile": figures.name,
        "house_edge": solution.house_edge,
        "dealer_bust_by_upcard": {up_label(up): solution.bank_bust_by_upcard[up] for up in UP_VALUES},
        "surrender": {
            "offered": solution.terms.surrender,
            "house_edge_with": figures.with_surrender.house_edge,
            "house_edge_without": figures.without_surrender.house_edge,
        },
        "bank_final_result": {case.value: p for case, p in figures.final_result.items()},
        "hyper_blackjack": {
            "offered": figures.hyper_offered,
            "cases": {case.value: {"pays": ODDS[case], "probability": p, "ev": evs[case]}
                      for case, p in figures.final_result.items()},
        },
    }


def house_edge_lines(figures: EdgeFigures) -> list[str]:
    solution = figures.solution
    lines = [
        f"profile {figures.name}: house edge {solution.house_edge * 100:.3f}% of the initial stake "
        "(off the top of a full shoe, the computed strategy, no insurance)",
        f"surrender (55-4 1°) {'offered' if solution.terms.surrender else 'not offered'}: "
        f"house edge {figures.with_surrender.house_edge * 100:.3f}% with it, "
        f"{figures.without_surrender.house_edge * 100:.3f}% without",
        "",
        "bank  " + " ".join(f"{label:>7}" for label in ("17", "18", "19", "20", "21", "bust", "BJ")) + "  player EV",
    ]
    for up in UP_VALUES:
        distribution = solution.bank_by_upcard[up]
        cells = " ".join(f"{p * 100:6.2f}%" for p in distribution)
        lines.append(f"  {up_label(up):>2}  {cells}  {solution.ev_by_upcard[up] * 100:+8.3f}%")
    offered = "offered" if figures.hyper_offered else "not offered"
    lines += [
        "",
        f"bank's final result off the top, and hyper black jack (55-4 6°, {offered}): "
        "a winning case keeps its stake and is paid N pour 1",
        f"  {'case':<10} {'chance':>8} {'pays':>5} {'EV per unit':>12}",
    ]
    evs = figures.hyper_ev
    for case, p in figures.final_result.items():
        lines.append(f"  {case.label:<10} {p * 100:7.3f}% {ODDS[case]:>3}:1 {evs[case] * 100:+11.3f}%")
    return lines
