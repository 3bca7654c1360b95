"""A rated player's id: a pseudonym of his card number, keyed by the casino's secret (issue 23).

The table turns the number a player card reader read into ``p-`` and the first 12 hex digits of
HMAC-SHA256(secret, number) before the read becomes an input of the core. So the journal, the feed, the floor and
the display hold the pseudonym only: the same card at any table of the casino (one secret) is the same player,
and nobody without the secret can go from a pseudonym back to a card number, or test a guessed number against one.
48 bits keep two cards of a casino apart (a collision among a million cards is about one chance in 500) in a label
short enough for a box of the display (14 characters; core/seating.py allows 16).

The secret is the casino's, read once at start from `[player_cards] secret_file` or ``TABLE_PLAYER_CARD_SECRET``
(table_runtime/config/player_cards.py). A new secret gives every card a new pseudonym: the casino keeps it as it
keeps the floor's replay secret. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Final

from table_runtime.game.player_ids import HEX_DIGITS, PREFIX
from table_runtime.game.player_ids import is_pseudonym as is_pseudonym

MIN_SECRET_BYTES: Final = 16  # a shorter secret could be found by trying them all


def pseudonym(secret: bytes, card_number: str) -> str:
    """The player's id for `card_number` under the casino's `secret`: ``p-`` and 12 lower-case hex digits."""
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(f"the player card secret is {len(secret)} bytes; at least {MIN_SECRET_BYTES}")
    digest = hmac.new(secret, card_number.encode("utf-8"), hashlib.sha256).hexdigest()
    return PREFIX + digest[:HEX_DIGITS]
