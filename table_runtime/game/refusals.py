"""Why a command is refused: a reason code beside the words, named once.

A refused command is a `command_refused` alarm (the round's, or the command table's for a panel button) or a
reply to the display; both carry `reason`, one of the codes below, so the display, the feed's consumers and
the floor read why without parsing the English message (docs/alarms.md lists the codes). The message keeps
the words a dealer reads, with the facts of the moment (the phase, the cards, the hand's total).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class RefusalReason(enum.StrEnum):
    """Every reason a command is refused, by the round's rules or by the command table."""

    # The round (game/round.py, table.py; the rules' reasons in game/decisions.py, game/undo.py).
    NO_ROUND = "no_round"  # a round's command with no round at all
    NO_HAND_PLAYING = "no_hand_playing"  # NEXT, DOUBLE, SPLIT with no hand playing
    SECOND_CARD = "second_card"  # NEXT on a hand waiting for its second card
    DOUBLED_ONE_CARD = "doubled_one_card"  # NEXT on a doubled hand still owed its card
    DOUBLE_TWO_CARDS = "double_two_cards"  # a double after the first two cards
    SPLIT_ACES_ONE_CARD = "split_aces_one_card"  # a double on split aces
    NO_DOUBLE_AFTER_SPLIT = "no_double_after_split"
    DOUBLE_9_10_11 = "double_9_10_11"  # a double on another total where the rules allow 9, 10, 11 only
    SPLIT_NEEDS_PAIR = "split_needs_pair"
    NOT_IDENTICAL = "not_identical"  # a split of two cards of the same value but not the same rank
    NOT_SAME_VALUE = "not_same_value"
    SPLIT_ACES_AGAIN = "split_aces_again"
    HANDS_LIMIT = "hands_limit"  # a split past the rules' hands per box
    NOTHING_TO_UNDO = "nothing_to_undo"
    DEAL_ORDER_FIXED = "deal_order_fixed"  # UNDO of a card of the fixed deal
    CARDS_HELD = "cards_held"  # CONFIRM while the round holds cards
    NOTHING_TO_CONFIRM = "nothing_to_confirm"
    NOT_IN_PLAY = "not_in_play"  # VOID with no round in play
    NO_HELD_CARD = "no_held_card"  # DISCARD with nothing held
    WRONG_PHASE = "wrong_phase"  # bets locked while a round is in play
    # The command table (core/commands.py).
    UNKNOWN_COMMAND = "unknown_command"
    READ_ONLY = "read_only"  # the pit's view
    NEEDS_SUPERVISOR = "needs_supervisor"  # a supervisor's command, or a supervisor's alarm, by the dealer
    PLAY_STOPPED = "play_stopped"  # every command but the clearing while play is stopped (core/alarm_ledger.py)
    NO_CHIP_READER = "no_chip_reader"  # DEAL with no zones to lock the bets from
    NO_SUCH_ALARM = "no_such_alarm"
    BAD_CARD = "bad_card"  # MANUAL_CARD with a card code that is none
    INPUT_OUT_OF_BOUNDS = "input_out_of_bounds"  # text with U+0000 or too long, a number past 64 bits: input_bounds.py
    # The hyper black jack field (55-4 6°: game/round.py, core/hyper_field.py).
    HYPER_BANK_MUST_DRAW = "hyper_bank_must_draw"  # CONFIRM while the bank must still draw for the hyper field
    HYPER_UNASSIGNED = "hyper_unassigned"  # DEAL while chips on a hyper case are not all assigned to a box
    HYPER_CLOSED = "hyper_closed"  # a hyper assignment where the rules do not open the field, or after the lock
    HYPER_NO_MAIN_BET = "hyper_no_main_bet"  # a hyper assignment to a box with no main bet
    HYPER_SEATED_ONLY = "hyper_seated_only"  # a hyper assignment to a player behind where the field is seated-only
    BAD_HYPER_ASSIGNMENT = "bad_hyper_assignment"  # an unknown case, a box outside the table, a bad amount
    # Surrender (game/surrender.py) and the director's options at DEAL (core/seating.py): 55-4 as amended in 2020.
    SURRENDER_NOT_OFFERED = "surrender_not_offered"  # SURRENDER where the rules do not offer it
    SURRENDER_TWO_CARDS = "surrender_two_cards"  # SURRENDER after a third card (or before the second)
    SURRENDER_AFTER_SPLIT = "surrender_after_split"  # SURRENDER of a split hand
    SURRENDER_BANK_ACE = "surrender_bank_ace"  # SURRENDER while the bank's card is an ace
    BEHIND_WHILE_SEAT_VACANT = "behind_while_seat_vacant"  # DEAL with a behind bet while a seat is vacant
    TOO_MANY_BOXES = "too_many_boxes"  # DEAL with a player on more boxes than the director allows
    BAD_SEAT = "bad_seat"  # SEAT or SEAT_CLEAR naming no box of the table, or no player
    # Buy-ins (core/buy_ins.py).
    BAD_AMOUNT = "bad_amount"  # a buy-in's amount that is not a whole number of cents above 0
    OVER_BUY_IN_MAXIMUM = "over_buy_in_maximum"  # a buy-in over the table's [limits] buy_in_max_cents
    BAD_BUY_IN = "bad_buy_in"  # a buy-in paid with neither cash nor a marker, for no box of the table
    PLAYER_NOT_PSEUDONYM = "player_not_pseudonym"  # a buy-in's player as free text (a card number), no pseudonym
    # Player cards (core/player_cards.py).
    NO_CARD_READ = "no_card_read"  # SEAT_CARD while no card read waits to be placed
    # The staff (core/shift.py, issue 34), where a staff registry rules the table.
    NO_DEALER = "no_dealer"  # DEAL while no dealer is logged in
    NEEDS_OWN_CREDENTIAL = "needs_own_credential"  # a supervisor's action with no supervisor named (the shared PIN)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refusal: its code and the words the dealer reads."""

    reason: RefusalReason
    text: str


# The round's refusals that are not a rule's verdict on a hand (those are game/decisions.py's, game/undo.py's).
NO_HELD_CARD = Refusal(RefusalReason.NO_HELD_CARD, "no held card")


def no_hand_playing(phase: str) -> Refusal:
    return Refusal(RefusalReason.NO_HAND_PLAYING, f"no hand is playing (phase {phase})")


def cards_held(cards: str) -> Refusal:
    return Refusal(RefusalReason.CARDS_HELD, f"held cards {cards} must be assigned or discarded first")


def nothing_to_confirm(phase: str) -> Refusal:
    return Refusal(RefusalReason.NOTHING_TO_CONFIRM, f"nothing to confirm in phase {phase}")


def not_in_play(phase: str) -> Refusal:
    return Refusal(RefusalReason.NOT_IN_PLAY, f"no round in play (phase {phase})")
