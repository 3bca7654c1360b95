"""The kinds of alarm the table raises: defined once, used everywhere by reference.

docs/alarms.md describes each kind (when it is raised, the box and amounts it
names, the rule it cites, who acknowledges it); tests/test_alarm_catalogue.py
checks that the doc, this enum and the modules that raise alarms agree. A
`StrEnum`: a member is equal to its value and serializes as it, so the journal,
the feed and the display keep their plain strings (`"past_posting"`).
"""

from __future__ import annotations

import enum


class AlarmKind(enum.StrEnum):
    """Every kind of alarm, grouped by the source that raises it (the sections of docs/alarms.md)."""

    # The round engine (table_runtime/game/round.py, table.py).
    INSURANCE_OPEN = "insurance_open"
    BANK_MUST_STAND = "bank_must_stand"
    BANK_MUST_DRAW = "bank_must_draw"
    CARD_NO_HAND = "card_no_hand"
    CARD_OVERCOUNT = "card_overcount"
    NO_SHOE = "no_shoe"
    NEW_SHOE_NEEDED = "new_shoe_needed"
    SHUFFLE_MID_ROUND = "shuffle_mid_round"
    BET_REFUSED = "bet_refused"
    BET_UNDER_MINIMUM = "bet_under_minimum"
    BET_OVER_MAXIMUM = "bet_over_maximum"
    TOO_FEW_BOXES = "too_few_boxes"
    INSURANCE_REFUSED = "insurance_refused"
    COMMAND_REFUSED = "command_refused"  # also the command table's, for a panel button
    PLAY_STOPPED = "play_stopped"  # a card drawn while play is stopped (held, dealt to no hand)
    # The shoe (table_runtime/core/shoe_watch.py).
    UNREADABLE_CARD = "unreadable_card"
    SHOE_DOOR_OPEN = "shoe_door_open"
    SHOE_JAM = "shoe_jam"
    SHOE_OFFLINE = "shoe_offline"
    MISSED_CARDS = "missed_cards"
    SHOE_COUNT_MISMATCH = "shoe_count_mismatch"
    SHOE_GATE_LOCKED = "shoe_gate_locked"
    # The devices (table_runtime/runtime/).
    REGISTRY_UNREADABLE = "registry_unreadable"
    JOURNAL_BROKEN = "journal_broken"
    JOURNAL_UNWRITABLE = "journal_unwritable"
    # The chip watch of the table core (table_runtime/core/).
    PAST_POSTING = "past_posting"
    WRONG_WINDOW_AMOUNT = "wrong_window_amount"
    WRONG_PAYOUT = "wrong_payout"
    BEHIND_WITHOUT_SEATED = "behind_without_seated"
    CHIPS_OUT_OF_PLACE = "chips_out_of_place"
    # The chips (table_runtime/chips/): the integrity check's kinds, then the readers' edge.
    COUNTERFEIT_CHIP = "counterfeit_chip"
    VOID_CHIP = "void_chip"
    STOLEN_CHIP = "stolen_chip"
    OTHER_CASINO_CHIP = "other_casino_chip"
    TAG_MISMATCH = "tag_mismatch"
    READER_OFFLINE = "reader_offline"
    ANTENNA_FAULT = "antenna_fault"
    # The display (table_runtime/display/).
    SUPERVISOR_PIN_LOCKED = "supervisor_pin_locked"
    STAFF_PIN_LOCKED = "staff_pin_locked"  # an employee's own PIN (display/staff_guard.py, issue 34)
    # The hyper black jack field (55-4 6°): the round's (game/hyper_settlement.py), the chip watch's
    # (core/hyper_field.py).
    HYPER_BET_REFUSED = "hyper_bet_refused"
    HYPER_UNASSIGNED = "hyper_unassigned"
    SETTLEMENT_ORDER = "settlement_order"
    # The director's options at DEAL (table_runtime/core/seating.py; 55-4 as amended on 6 May 2020).
    BEHIND_WHILE_SEAT_VACANT = "behind_while_seat_vacant"
    TOO_MANY_BOXES = "too_many_boxes"
    # The player card readers (table_runtime/runtime/card_link.py; issue 23).
    CARD_READER_OFFLINE = "card_reader_offline"
    PLAYER_CARD_UNREADABLE = "player_card_unreadable"
    # The rated sessions' advice to the supervisor (table_runtime/rating/session_flags.py, issue 23).
    ADVANTAGE_PLAY = "advantage_play"


# Kinds a hostile or broken input can raise by the thousand (junk tags, a card storm, a flapping antenna, a
# mashed button): while one is open (not acknowledged) on a box, the next of the same kind and box updates
# it (its `count`, last message and amounts: an `alarm_updated` journal row) instead of raising another.
AGGREGATED_KINDS: frozenset[AlarmKind] = frozenset({
    AlarmKind.COUNTERFEIT_CHIP, AlarmKind.VOID_CHIP, AlarmKind.STOLEN_CHIP, AlarmKind.OTHER_CASINO_CHIP,
    AlarmKind.TAG_MISMATCH, AlarmKind.ANTENNA_FAULT, AlarmKind.CARD_NO_HAND, AlarmKind.CARD_OVERCOUNT,
    AlarmKind.UNREADABLE_CARD, AlarmKind.COMMAND_REFUSED, AlarmKind.PLAY_STOPPED,
    AlarmKind.PLAYER_CARD_UNREADABLE, AlarmKind.CARD_READER_OFFLINE,
})

# Advice for the supervisor and the pit only (a rated session's flags, issue 23): the dealer's screen leaves
# them out (display/server.py); the pit's view, the supervisor's ratings view and the feed carry them.
ADVICE_KINDS: frozenset[AlarmKind] = frozenset({AlarmKind.ADVANTAGE_PLAY})
