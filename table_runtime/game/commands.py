"""The names of the dealer's commands and of who acts: defined once, used everywhere by reference.

A `Command` is what a button of the dealer's panel or a touch of the display
asks for; the core's command table (table_runtime/core/commands.py) says what
input each becomes and who may press it. A `Role` is who is acting: the dealer,
the pit supervisor (with the supervisor PIN), or the pit's read-only view.
Both are `StrEnum`s: a member is equal to its name, so journals, the display
and the scenario files keep their plain strings.
"""

from __future__ import annotations

import enum
from typing import Final


class Command(enum.StrEnum):
    """Every command a dealer or a supervisor may give the table."""

    DEAL = "DEAL"  # NO MORE BETS: lock the bets on the zones
    NEXT = "NEXT"
    DOUBLE = "DOUBLE"
    SPLIT = "SPLIT"
    UNDO = "UNDO"
    CONFIRM = "CONFIRM"
    VOID = "VOID"
    DISCARD = "DISCARD"
    MANUAL_CARD = "MANUAL_CARD"
    ACK_ALARM = "ACK_ALARM"
    # The hyper black jack field (55-4 6°): the dealer assigns a case's stake to a box on the display.
    HYPER_ASSIGN = "HYPER_ASSIGN"


class Role(enum.StrEnum):
    """Who acts."""

    DEALER = "dealer"
    SUPERVISOR = "supervisor"
    PIT = "pit"


# The buttons of the dealer's panel, in their wiring order (config `[panel]` keys are their lower-case names).
PANEL_BUTTONS: Final = (Command.DEAL, Command.NEXT, Command.DOUBLE, Command.SPLIT, Command.UNDO, Command.CONFIRM)

# The commands the round machine itself answers (the others are the table's: DEAL, MANUAL_CARD, ACK_ALARM).
ROUND_COMMANDS: Final = (Command.NEXT, Command.DOUBLE, Command.SPLIT, Command.UNDO, Command.CONFIRM, Command.VOID,
                         Command.DISCARD)

# Commands only the supervisor gives (the PIN is asked for them).
SUPERVISOR_COMMANDS: Final = frozenset({Command.VOID})
