"""What each stake wins or loses once the bank has finished (docs/rules.md "Settlement").

Pure arithmetic in integer cents. 3:2 on a stake with an odd number of cents is
a half cent: it is rounded down and the payout says so in its note (never
silently); a house may round blackjack payouts down to its smallest chip.
"""

from __future__ import annotations

from functools import lru_cache

from table_runtime.game.box import BoxState
from table_runtime.game.events import Payout
from table_runtime.game.hand import Hand
from table_runtime.game.rules import BankBlackjackTakes, RuleOptions
from table_runtime.game.surrender import surrender_result


def blackjack_net(cents: int, rules: RuleOptions) -> tuple[int, str]:
    """3:2 (art. 55-4 « Paiements »); the note explains any rounding."""
    exact_half_cents = cents * 3  # in half cents
    net = exact_half_cents // 2
    note = ""
    if exact_half_cents % 2:
        note = f"3:2 of {cents} cents is {net}.5 cents: paid {net}"
    chip = rules.blackjack_round_down_cents
    if chip and net % chip:
        rounded = net - net % chip
        note = (f"3:2 of {cents} cents is {exact_half_cents / 2:g} cents: "
                f"paid {rounded}, rounded down to a {chip}-cent chip")
        net = rounded
    return net, note


def hand_payouts(
    hand: Hand,
    index: int,
    *,
    bank_total: int,
    bank_blackjack: bool,
    paid_early: bool,
    rules: RuleOptions,
) -> list[Payout]:
    """One payout per stake on `hand`. Behind stakes are settled like the seated stake (docs/rules.md "Settlement")."""
    payouts = []
    charlie = hand.charlie(rules.ten_card_charlie)
    for stake in hand.stakes:
        outcome, net, note = _stake_result(
            hand, stake.kind, stake.cents, charlie, bank_total, bank_blackjack, paid_early, rules
        )
        payouts.append(_payout(hand.box, index, stake.owner, stake.kind, stake.cents, outcome, net, note))
    return payouts


def round_payouts(boxes: list[BoxState], bank: Hand, paid_early: set[int], rules: RuleOptions) -> tuple[Payout, ...]:
    """Every payout of the round once the bank has finished: per box its insurance, then each hand's stakes.

    `paid_early` holds the id() of hands whose blackjack was paid before the bank drew (house option
    pay_blackjack_before_bank)."""
    bank_blackjack = bank.blackjack
    bank_total = bank.total
    payouts: list[Payout] = []
    for box in boxes:
        if box.insurance:
            payouts.append(insurance_payout(box.number, box.bet.owner, box.insurance, bank_blackjack))
        for index, hand in enumerate(box.hands):
            payouts.extend(hand_payouts(hand, index, bank_total=bank_total, bank_blackjack=bank_blackjack,
                                        paid_early=id(hand) in paid_early, rules=rules))
    return tuple(payouts)


def early_blackjack_payouts(hand: Hand, rules: RuleOptions) -> list[Payout]:
    """What a blackjack paid before the bank draws (house option pay_blackjack_before_bank) is paid: the same payouts
    settlement lists for it."""
    return hand_payouts(hand, 0, bank_total=0, bank_blackjack=False, paid_early=True, rules=rules)


@lru_cache(maxsize=4096)
def _payout(box: int, hand: int, owner: str, kind: str, staked_cents: int, outcome: str, net_cents: int,
            note: str) -> Payout:
    """Payouts are frozen values and a table settles the same ones round after round: each is made once
    (the last few thousand kept) instead of per stake; building a frozen dataclass is the costly part."""
    return Payout(box=box, hand=hand, owner=owner, kind=kind, staked_cents=staked_cents, outcome=outcome,
                  net_cents=net_cents, note=note)


def _stake_result(
    hand: Hand,
    kind: str,
    cents: int,
    charlie: bool,
    bank_total: int,
    bank_blackjack: bool,
    paid_early: bool,
    rules: RuleOptions,
) -> tuple[str, int, str]:
    if hand.busted:
        return "bust", -cents, ""  # art. 55-4 « Déroulement de la partie »
    if hand.surrendered:
        return surrender_result(cents)  # 55-4 1° (2020): half the stake back
    if charlie:
        return "charlie", cents, ""  # house option ten_card_charlie: wins outright, even against a bank blackjack
    if hand.blackjack:
        if bank_blackjack and not paid_early:
            return "push", 0, ""  # the houses' texts (docs/rules.md "Settlement")
        net, note = blackjack_net(cents, rules)
        return "blackjack", net, note
    if bank_blackjack:
        # No hole card (the online text, bank_blackjack_takes): doubled and split stakes are lost too, unless the house
        # returns them.
        if rules.bank_blackjack_takes is BankBlackjackTakes.ORIGINAL_ONLY and kind in ("double", "split"):
            return "push", 0, "bank blackjack takes the original stake only"
        return "lose", -cents, ""
    total = hand.total
    if bank_total > 21 or total > bank_total:
        return "win", cents, ""  # art. 55-4 « Paiements »
    if total == bank_total:
        return "push", 0, ""  # art. 55-4 « Paiements »
    return "lose", -cents, ""  # art. 55-4 « Paiements »


def insurance_payout(box: int, owner: str, cents: int, bank_blackjack: bool) -> Payout:
    """2 to 1 when the bank's second card makes blackjack, else lost (art. 55-4 « Assurance »)."""
    if bank_blackjack:
        return Payout(box=box, hand=0, owner=owner, kind="insurance", staked_cents=cents,
                      outcome="insurance_win", net_cents=2 * cents)
    return Payout(box=box, hand=0, owner=owner, kind="insurance", staked_cents=cents,
                  outcome="insurance_lose", net_cents=-cents)
