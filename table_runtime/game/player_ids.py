"""A rated player's id, as the table holds it: the shape of a card's pseudonym (issue 23, issue 30).

rating/pseudonym.py makes the pseudonym of a card number: ``p-`` and the first 12 hex digits of an HMAC under the
casino's secret. The core refuses any other player id from a command (core/buy_ins.py): a card number, or any
free text, must never be journaled. The shape lives here, below both, so that the core checks it without
importing the rating. Pure.
"""

from __future__ import annotations

from typing import Final

PREFIX: Final = "p-"
HEX_DIGITS: Final = 12


def is_pseudonym(text: str) -> bool:
    """Whether `text` has the shape of a card's pseudonym (a label the dealer typed, or a card number, has not)."""
    digits = text[len(PREFIX):]
    return text.startswith(PREFIX) and len(digits) == HEX_DIGITS and all(c in "0123456789abcdef" for c in digits)
