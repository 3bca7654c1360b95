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
    # The amended text (55-4 as amended on 6 May 2020): surrender, and who sits where for the director's options.
    SURRENDER = "SURRENDER"  # « abandon »: the current hand gives up its first two cards for half its stake
    SEAT = "SEAT"  # the dealer says which player holds a box (args {"box": N, "player": "label"})
    SEAT_CLEAR = "SEAT_CLEAR"  # the player of a box left (args {"box": N})
    BUY_IN = "BUY_IN"  # cash or a marker exchanged for chips at the table (core/buy_ins.py)
    SEAT_CARD = "SEAT_CARD"  # the player card just read placed on a box (args {"box": N}; core/player_cards.py)
    # A rated session's seat changes (core/seat_changes.py, issue 23).
    PAUSE = "PAUSE"  # the seated player of a box steps away (args {"box": N})
    RESUME = "RESUME"  # he is back (args {"box": N})
    MOVE = "MOVE"  # the seated player moves to a free box (args {"from_box": N, "to_box": M})
    BEHIND = "BEHIND"  # a player bets behind a box (args {"box": N, "player": "label"})
    BEHIND_CLEAR = "BEHIND_CLEAR"  # the player behind a box left (args {"box": N})
    # The séance (core/seance.py, issue 33): the tray counted at the open and the close, the numbered slips, tips,
    # orphan chips, the identity's reference.
    SEANCE_OPEN = "SEANCE_OPEN"  # args {"chips": {"10000": 30, ...}, "source": "manual"}: the opener
    SEANCE_CLOSE = "SEANCE_CLOSE"  # args {"chips": {...}, "source": "manual"}: the closer
    FILL = "FILL"  # the dealer asks for a complementary advance (args {"chips": {...}}): slip N
    CREDIT = "CREDIT"  # the dealer sends chips back to the cash desk (args {"chips": {...}}): slip N
    SLIP_CONFIRM = "SLIP_CONFIRM"  # the supervisor confirms slip N (args {"number": N})
    TIP = "TIP"  # a player's tip into the tronc (args {"box": N, "cents": C})
    ORPHAN_CHIPS = "ORPHAN_CHIPS"  # chips with no owner, recorded apart (args {"cents": C, "where": "text"})
    IDENTITY_RECORDED = "IDENTITY_RECORDED"  # the identity's reference (args {"box": N} or {"player": p-…},
    # "reference": "text")
    CHANGE = "CHANGE"  # a player's chips changed at the table (args {"cents": C, "to": "cash" | "chips", "box": N})


class Role(enum.StrEnum):
    """Who acts."""

    DEALER = "dealer"
    SUPERVISOR = "supervisor"
    PIT = "pit"


# The buttons of the dealer's panel, in their wiring order (config `[panel]` keys are their lower-case names).
# SURRENDER is an optional button: a panel wired before it has none (config `[pins] surrender`).
PANEL_BUTTONS: Final = (Command.DEAL, Command.NEXT, Command.DOUBLE, Command.SPLIT, Command.UNDO, Command.CONFIRM,
                        Command.SURRENDER)

# The commands the round machine itself answers (the others are the table's: DEAL, MANUAL_CARD, ACK_ALARM).
ROUND_COMMANDS: Final = (Command.NEXT, Command.DOUBLE, Command.SPLIT, Command.UNDO, Command.CONFIRM, Command.VOID,
                         Command.DISCARD, Command.SURRENDER)

# Commands only the supervisor gives (the PIN is asked for them).
SUPERVISOR_COMMANDS: Final = frozenset({Command.VOID, Command.SLIP_CONFIRM, Command.IDENTITY_RECORDED})
