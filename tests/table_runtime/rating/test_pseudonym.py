"""A player's id is a keyed pseudonym of his card number (table_runtime/rating/pseudonym.py)."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from table_runtime.rating.pseudonym import is_pseudonym, pseudonym

SECRET = b"casino-secret-0123456789"


def test_the_same_card_under_the_same_secret_is_the_same_player_and_another_secret_another() -> None:
    anna = pseudonym(SECRET, "6012345678901234")
    assert anna == pseudonym(SECRET, "6012345678901234")
    assert anna != pseudonym(b"another-casino-secret!!", "6012345678901234")
    assert anna != pseudonym(SECRET, "6012345678901235")
    # p- and the first 12 hex digits of HMAC-SHA256(secret, number): any tool with the secret can check it
    assert anna == "p-" + hmac.new(SECRET, b"6012345678901234", hashlib.sha256).hexdigest()[:12]
    assert is_pseudonym(anna) and len(anna) == 14 and "6012345678901234" not in anna
    assert not is_pseudonym("A") and not is_pseudonym("p-XYZ")


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 16"):
        pseudonym(b"short", "1")
