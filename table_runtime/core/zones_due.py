"""What the round says each chip zone must hold: pure views of a round, for the chip watcher and the bench.

A box's zones are `boxN` (the seated stake), `boxN.behind` and `boxN.insurance`
(docs/rules.md "Devices"). Amounts in cents.
"""

from __future__ import annotations

from table_runtime.game.round import Round
from table_runtime.game.settlement import blackjack_net
from table_runtime.game.surrender import returned_cents


def zone_box(zone: str) -> int | None:
    """`box3.behind` -> 3; None for a zone that is not a box's."""
    head = zone.split(".", 1)[0]
    number = head.removeprefix("box")
    return int(number) if head.startswith("box") and number.isdigit() else None


def paid_early_zones(round_: Round) -> tuple[str, ...]:
    """The zones the dealer may settle before the round's settlement: those of the hands whose blackjack was
    paid before the bank drew (docs/rules.md "Settlement", a house option), and the insurance lines once the bank has
    its second
    card, which settles them (docs/rules.md "Insurance"). Settlement checks what they end at."""
    paid = [zone for box in round_.boxes if any(id(hand) in round_.paid_early for hand in box.hands)
            for zone in (f"box{box.number}", f"box{box.number}.behind")]
    if len(round_.bank.cards) >= 2:
        paid += [f"box{box.number}.insurance" for box in round_.boxes if box.insurance]
    paid += [zone for zone in surrender_payments(round_) if zone not in paid]
    return tuple(paid)


def dead_stakes(round_: Round) -> dict[str, int]:
    """Per zone, the stakes of busted hands: collected at once (000), before the settlement."""
    dead: dict[str, int] = {}
    for box in round_.boxes:
        for hand in box.hands:
            if hand.busted:
                for stake in hand.stakes:
                    zone = f"box{box.number}" if stake.owner == box.bet.owner else f"box{box.number}.behind"
                    dead[zone] = dead.get(zone, 0) + stake.cents
    return dead


def early_payments(round_: Round) -> dict[str, int]:
    """Per zone of a blackjack paid before the bank drew (docs/rules.md "Settlement", option
    pay_blackjack_before_bank), the stake + payout the
    dealer puts there for the player to take away: what the zone must hold when it is emptied. A surrendered
    hand's zones too (`surrender_payments`)."""
    due: dict[str, int] = {}
    for box in round_.boxes:
        hand = box.hands[0]
        if id(hand) not in round_.paid_early:
            continue
        for stake in hand.stakes:
            zone = f"box{box.number}" if stake.owner == box.bet.owner else f"box{box.number}.behind"
            due[zone] = due.get(zone, 0) + stake.cents + blackjack_net(stake.cents, round_.rules)[0]
    due.update(surrender_payments(round_))
    return due


def expected_zones(round_: Round) -> dict[str, int]:
    """What each zone must hold once the dealer has paid: stake + net payout per stake (0 when collected,
    and 0 for a blackjack paid and removed before the bank drew)."""
    expected: dict[str, int] = {}
    for box in round_.boxes:
        seated = box.bet.owner
        for zone in (f"box{box.number}", f"box{box.number}.behind", f"box{box.number}.insurance"):
            expected[zone] = 0
        for payout in round_.payouts:
            if payout.box != box.number or payout.kind.startswith("hyper."):
                continue  # another box's, or a hyper case's (core/hyper_field.py hyper_due)
            if payout.kind != "insurance" and id(box.hands[payout.hand]) in round_.paid_early:
                continue  # paid and removed at once: the zone ends empty
            if payout.kind == "insurance":
                zone = f"box{box.number}.insurance"
            elif payout.owner == seated:
                zone = f"box{box.number}"
            else:
                zone = f"box{box.number}.behind"
            expected[zone] += payout.staked_cents + payout.net_cents
    return expected


def surrender_payments(round_: Round) -> dict[str, int]:
    """Per zone of a surrendered hand (55-4 1° as amended in 2020; game/surrender.py), the half of the stake the
    dealer leaves there for the player to take back once he has collected the other half: what the zone must
    hold when it is emptied. Settled at once, so its chips may move before the settlement, which checks it."""
    due: dict[str, int] = {}
    for box in round_.boxes:
        hand = box.hands[0]
        if len(box.hands) != 1 or not hand.surrendered:
            continue  # a surrender is only ever of an unsplit hand
        for stake in hand.stakes:
            zone = f"box{box.number}" if stake.owner == box.bet.owner else f"box{box.number}.behind"
            due[zone] = due.get(zone, 0) + returned_cents(stake.cents)
    return due
