"""The bounds of the table's own inputs: nothing a command carries becomes a row the floor cannot store.

What the dealer's commands carry (the display's arguments; the panel's have none) is journaled, published and
stored at the floor in PostgreSQL, whose `text` holds no U+0000 and whose `bigint` ends at 2^63 - 1. A row
past either stopped the floor's batch (issue 30), so the table refuses such a command before it decides
anything (`args_problem`, asked first by core/commands.py `decide`): every text of the arguments (keys and values,
however nested) without U+0000 and at most `TEXT_MAX` characters, every whole number within PostgreSQL's bigint,
every other number finite (JSON as Python reads it takes ``NaN`` and ``Infinity``). Each command's own rules
(a box of the table, an amount under the house's maximum, a player's pseudonym) come after, in its module.

The refusal names the argument, never its value (it may be a card number: core/buy_ins.py). Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

BIGINT_MAX: Final = 2**63 - 1  # PostgreSQL's bigint: sequence numbers and money at the floor
BIGINT_MIN: Final = -(2**63)
TEXT_MAX: Final = 256  # characters of any text a command carries (a label takes 16, a pseudonym 14)
NUL: Final = "\x00"


def text_problem(text: str, where: str) -> str | None:
    """What keeps `text` out of the floor's database (U+0000, its length), or None."""
    if NUL in text:
        return f"{where} holds the character U+0000"
    if len(text) > TEXT_MAX:
        return f"{where} is {len(text)} characters long, at most {TEXT_MAX}"
    return None


def whole_problem(value: int, where: str) -> str | None:
    """A whole number past PostgreSQL's bigint, or None."""
    if not BIGINT_MIN <= value <= BIGINT_MAX:
        return f"{where} is past the floor's 64-bit numbers (at most {BIGINT_MAX})"
    return None


def value_problem(value: Any, where: str) -> str | None:
    """The first bound `value` breaks, looking inside lists and objects, or None."""
    if isinstance(value, str):
        return text_problem(value, where)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return whole_problem(value, where)
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where} is not a finite number"
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = f"{where}.{key}" if isinstance(key, str) and text_problem(key, "") is None else f"a key of {where}"
            problem = (text_problem(key, name) if isinstance(key, str) else None) or value_problem(item, name)
            if problem is not None:
                return problem
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            problem = value_problem(item, f"{where}[{index}]")
            if problem is not None:
                return problem
        return None
    return f"{where} is not a JSON value"


def args_problem(args: Mapping[str, Any]) -> str | None:
    """What in a command's arguments the floor could not store, naming the argument (not its value), or None."""
    return value_problem(args, "args")
