"""Text and JSON renderings of a strategy and its house edge."""

from __future__ import annotations

from typing import Any

from table_runtime.strategy.chart import UP_VALUES, Strategy
from table_runtime.strategy.solver import Solution

LEGEND = (
    "H hit, S stand, D double (else hit), Ds double (else stand), P split",
)


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
        for up in UP_VALUES:
            if strategy.splits(pair, up):
                cells.append("P")
            elif pair == 1:
                cells.append(strategy.letter(12, True, up))
            else:
                cells.append(strategy.letter(2 * pair, False, up))
        lines.append(f"  {label},{label:<2} " + " ".join(f"{cell:>2}" for cell in cells))
    lines += ["", *LEGEND]
    return lines


def house_edge_document(name: str, solution: Solution) -> dict[str, Any]:
    return {
        "profile": name,
        "house_edge": solution.house_edge,
        "dealer_bust_by_upcard": {up_label(up): solution.bank_bust_by_upcard[up] for up in UP_VALUES},
    }


def house_edge_lines(name: str, solution: Solution) -> list[str]:
    lines = [
        f"profile {name}: house edge {solution.house_edge * 100:.3f}% of the initial stake "
        "(off the top of a full shoe, the computed strategy, no insurance)",
        "",
        "bank  " + " ".join(f"{label:>7}" for label in ("17", "18", "19", "20", "21", "bust", "BJ")) + "  player EV",
    ]
    for up in UP_VALUES:
        distribution = solution.bank_by_upcard[up]
        cells = " ".join(f"{p * 100:6.2f}%" for p in distribution)
        lines.append(f"  {up_label(up):>2}  {cells}  {solution.ev_by_upcard[up] * 100:+8.3f}%")
    return lines
