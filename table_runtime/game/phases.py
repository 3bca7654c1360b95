"""The phases of a round, defined once.

betting -> dealing -> [insurance] -> playing -> bank -> settlement -> closed,
or voided from any phase in play. A phase is a `str` (its value is what the
journal, the feed and the snapshot carry), so code that compares it with a
plain string keeps working.
"""

from __future__ import annotations

import enum
from typing import Final


class Phase(enum.StrEnum):
    """Where a round stands; the value is the name every message carries."""

    BETTING = "betting"
    DEALING = "dealing"
    INSURANCE = "insurance"
    PLAYING = "playing"
    BANK = "bank"
    SETTLEMENT = "settlement"
    CLOSED = "closed"
    VOIDED = "voided"


# The members again as module constants: the engine compares the phase on every card, and `Phase.PLAYING`
# is an attribute look-up on the enum class (about 100 ns interpreted), a module constant one global read
# (a C constant in the compiled build). Typed `Phase`, not as the one member: after `phase != DEALING` mypy
# would otherwise take the phase for fixed, though the next input changes it.
BETTING: Final[Phase] = Phase.BETTING
DEALING: Final[Phase] = Phase.DEALING
INSURANCE: Final[Phase] = Phase.INSURANCE
PLAYING: Final[Phase] = Phase.PLAYING
BANK: Final[Phase] = Phase.BANK
SETTLEMENT: Final[Phase] = Phase.SETTLEMENT
CLOSED: Final[Phase] = Phase.CLOSED
VOIDED: Final[Phase] = Phase.VOIDED
PHASES: Final = tuple(Phase)
IN_PLAY: Final = frozenset((DEALING, INSURANCE, PLAYING, BANK, SETTLEMENT))
"""A round in these phases holds the table: cards go to it, and no new bets are locked."""
ENDED: Final = frozenset((CLOSED, VOIDED))
