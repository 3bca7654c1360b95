"""Expected values of the player's hand for one shoe composition and up card.

A `Situation` fixes the composition the cards come from (in practice: the shoe
less the bank's up card and the player's first two cards) and computes the
bank's final-total distribution exactly for it. The player's later draws are
taken from that same fixed composition: the usual approximation of a
"total-dependent" analysis, accurate to a few thousandths of a percent of the
house edge. Hands are (total, soft) keyed as `total + 32 * soft`.

Losses to a bank blackjack (no hole card): a hand still standing loses
`blackjack_loss` stakes when the bank makes blackjack. With the rule
"the bank's blackjack takes all" that is the whole stake (2 for a double);
with "original only" the doubling is returned (1), and a split box loses only
the first hand's original stake, counted as 1 / (expected number of hands) on
each of its alike hands.
"""

from __future__ import annotations

from collections.abc import Sequence

from table_runtime.strategy.composition import Composition, add_card, two_card_hand
from table_runtime.strategy.dealer import BLACKJACK, BUST, Distribution, bank_distribution, without_blackjack
from table_runtime.strategy.terms import PlayTerms

KEYS = 64  # total + 32 * soft
CHARLIE_CARDS = 10


def key(total: int, soft: bool) -> int:
    return total + 32 if soft else total


class Situation:
    """The EVs of standing, hitting, doubling and splitting from one composition."""

    __slots__ = ("_base", "_draws", "_hits", "_memos", "bank", "bank_blackjack", "counts", "p_blackjack", "terms", "up")

    def __init__(self, terms: PlayTerms, counts: Composition, up: int) -> None:
        self.terms = terms
        self.counts = counts
        self.up = up
        remaining = sum(counts)
        self._draws = tuple((value, counts[value - 1] / remaining) for value in range(1, 11) if counts[value - 1])
        bank: Distribution = bank_distribution(counts, up, terms.dealer_hits_soft_17)
        self.bank_blackjack = bank[BLACKJACK]  # before any peek
        if terms.peek:
            bank = without_blackjack(bank)
        self.bank = bank
        self.p_blackjack = bank[BLACKJACK]
        # _base[t]: a standing total t against the bank's non-blackjack outcomes, stake 1.
        base = []
        for total in range(22):
            value = bank[BUST]
            for index in range(5):
                if total > 17 + index:
                    value += bank[index]
                elif total < 17 + index:
                    value -= bank[index]
            base.append(value)
        self._base = base
        self._hits: Sequence[bool] = ()
        self._memos: dict[float, dict[int, float]] = {}

    def use_chart(self, hits: Sequence[bool]) -> None:
        """Fix the hit-or-stand chart that `following`, `hit_then_follow` and `split` play."""
        self._hits = hits
        self._memos = {}

    # -- single hands --------------------------------------------------------

    def standing(self, total: int, stake: float = 1.0, blackjack_loss: float = 1.0) -> float:
        """EV of a hand that stands on `total` (a bust when over 21)."""
        if total > 21:
            return -stake
        return stake * self._base[total] - blackjack_loss * self.p_blackjack

    def doubled(self, total: int, soft: bool, blackjack_loss: float) -> float:
        """EV of doubling: one card, then stand, stake 2."""
        ev = 0.0
        for value, chance in self._draws:
            after, _ = add_card(total, soft, value)
            ev += chance * self.standing(after, 2.0, blackjack_loss)
        return ev

    def natural(self) -> float:
        """EV of a player blackjack (paid 3:2, pushed by a bank blackjack)."""
        if self.up == 10 and self.terms.pay_blackjack_before_bank:
            return 1.5
        return 1.5 * (1.0 - self.p_blackjack)

    def optimal_hit_stand(self) -> tuple[list[float], list[float]]:
        """(stand EV, hit EV) per hand key, hitting on optimally afterwards; stake 1."""
        stand = [0.0] * KEYS
        hit = [0.0] * KEYS
        best = [0.0] * KEYS
        order = [(t, False) for t in range(21, 11, -1)] + [(t, True) for t in range(21, 11, -1)]
        order += [(t, False) for t in range(11, 1, -1)]
        for total, soft in order:
            ev = 0.0
            for value, chance in self._draws:
                after, after_soft = add_card(total, soft, value)
                ev += chance * (-1.0 if after > 21 else best[key(after, after_soft)])
            k = key(total, soft)
            stand[k] = self.standing(total)
            hit[k] = ev
            best[k] = max(ev, stand[k])
        return stand, hit

    def following(self, total: int, soft: bool, cards: int, blackjack_loss: float) -> float:
        """EV of a hand of `cards` cards that hits while the chart says so, stake 1."""
        memo = self._memos.setdefault(blackjack_loss, {})
        hits = self._hits
        charlie = self.terms.ten_card_charlie

        def value_of(total: int, soft: bool, cards: int) -> float:
            if total > 21:
                return -1.0
            if charlie and cards >= CHARLIE_CARDS:
                return 1.0
            k = key(total, soft)
            if not hits[k]:
                return self.standing(total, 1.0, blackjack_loss)
            slot = k * 16 + (cards if charlie else 0)
            known = memo.get(slot)
            if known is not None:
                return known
            ev = 0.0
            for value, chance in self._draws:
                after, after_soft = add_card(total, soft, value)
                ev += chance * value_of(after, after_soft, cards + 1)
            memo[slot] = ev
            return ev

        return value_of(total, soft, cards)

    def hit_then_follow(self, total: int, soft: bool, cards: int, blackjack_loss: float) -> float:
        """EV of hitting once now, then following the chart."""
        ev = 0.0
        for value, chance in self._draws:
            after, after_soft = add_card(total, soft, value)
            if after > 21:
                ev -= chance
            elif self.terms.ten_card_charlie and cards + 1 >= CHARLIE_CARDS:
                ev += chance
            else:
                ev += chance * self.following(after, after_soft, cards + 1, blackjack_loss)
        return ev

    # -- splitting -----------------------------------------------------------

    def split(self, pair: int, doubles: Sequence[bool]) -> float:
        """EV of splitting a pair of `pair` value (stake 1 per hand, summed over hands).

        The chart is the one given to `use_chart` and `doubles`: whether a two-card
        hand doubles when allowed. Each split hand draws from this fixed
        composition; resplits follow the number of hands allowed.
        """
        terms = self.terms
        remaining = sum(self.counts)
        if pair == 10 and terms.split_by_rank:
            same_rank = 4 * terms.decks - 2 - (0.25 if self.up == 10 else 0.0)
            match = same_rank / remaining
        else:
            match = self.counts[pair - 1] / remaining
        limit = 2 if pair == 1 else terms.max_hands
        plain, paired = expected_split_hands(match, limit)
        if terms.bank_blackjack_takes_all:
            split_loss, double_loss = 1.0, 2.0
        else:
            # Only the first hand's original stake goes to the bank's blackjack: spread
            # over the expected number of hands, since every hand here is alike.
            split_loss = double_loss = 1.0 / (plain + paired)

        def hand(second: int) -> float:
            total, soft = two_card_hand(pair, second)
            if pair == 1:  # split aces take one card each
                return self.standing(total, 1.0, split_loss)
            k = key(total, soft)
            if terms.double_after_split and terms.may_double(total, soft) and doubles[k]:
                return self.doubled(total, soft, double_loss)
            if self._hits[k]:
                return self.hit_then_follow(total, soft, 2, split_loss)
            return self.standing(total, 1.0, split_loss)

        other = 0.0
        for value, chance in self._draws:
            if value == pair:
                if pair == 10 and terms.split_by_rank:
                    other += (chance - match) * hand(value)
            else:
                other += chance * hand(value)
        other /= 1.0 - match
        unsplit_pair = hand(pair)
        return plain * other + paired * unsplit_pair


def expected_split_hands(match: float, limit: int) -> tuple[float, float]:
    """Expected numbers of split hands whose second card (a) does not pair, (b) pairs
    again but may not be split because the box already holds `limit` hands.

    `match` is the chance that a split hand's second card pairs it again.
    """
    memo: dict[tuple[int, int], tuple[float, float]] = {}

    def expect(pending: int, hands: int) -> tuple[float, float]:
        if pending == 0:
            return 0.0, 0.0
        known = memo.get((pending, hands))
        if known is not None:
            return known
        rest_plain, rest_paired = expect(pending - 1, hands)
        plain = (1.0 - match) * (1.0 + rest_plain)
        paired = (1.0 - match) * rest_paired
        if hands < limit:
            more_plain, more_paired = expect(pending + 1, hands + 1)
            plain += match * more_plain
            paired += match * more_paired
        else:
            plain += match * rest_plain
            paired += match * (1.0 + rest_paired)
        memo[pending, hands] = (plain, paired)
        return plain, paired

    return expect(2, 2)
