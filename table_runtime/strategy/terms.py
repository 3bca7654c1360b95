"""The rule terms that change the mathematics of play, taken from `RuleOptions`.

Two profiles that differ only in burn cards, cut card or boxes play the same
strategy, so the strategy cache is keyed on these terms, not on the options.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_runtime.game.rules import RuleOptions

# Unlimited resplitting is computed with this many hands at most: with a fixed
# composition the chance of a 9th hand is below 1e-9 for every pair.
UNLIMITED_HANDS = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayTerms:
    """What the strategy and house-edge computations depend on."""

    decks: int = 6
    dealer_hits_soft_17: bool = False
    double_any_two: bool = True  # False: double on hard 9, 10, 11 only
    double_after_split: bool = True
    split_by_rank: bool = False  # True: only identical ranks split (J+Q does not)
    max_hands: int = UNLIMITED_HANDS  # hands a box may hold after splitting; 1 = no split
    pay_blackjack_before_bank: bool = False
    ten_card_charlie: bool = False
    bank_blackjack_takes_all: bool = True  # False: only the original stake is lost
    # 55-4 1° (6 May 2020): give up an unsplit two-card hand for half the stake, not against an ace; with
    # no hole card the choice comes before the bank's second card (see `surrender`).
    surrender: bool = False
    # Internal, for cross-checking against published peek-game figures only: the
    # bank checks for blackjack before the players act (a hole-card game).
    peek: bool = False

    @classmethod
    def from_options(cls, options: RuleOptions) -> PlayTerms:
        limit = options.max_hands_after_split
        return cls(
            decks=options.decks,
            dealer_hits_soft_17=options.dealer_hits_soft_17,
            double_any_two=options.double_on == "any_two",
            double_after_split=options.double_after_split,
            split_by_rank=options.split_match == "rank",
            max_hands=UNLIMITED_HANDS if limit is None else min(limit, UNLIMITED_HANDS),
            pay_blackjack_before_bank=options.pay_blackjack_before_bank,
            ten_card_charlie=options.ten_card_charlie,
            bank_blackjack_takes_all=options.bank_blackjack_takes == "all",
            surrender=options.surrender,
        )

    def may_double(self, total: int, soft: bool) -> bool:
        """Whether a two-card hand of this total may double (before the split rule)."""
        if self.double_any_two:
            return True
        return not soft and 9 <= total <= 11
