"""Bench: colluding dealers flagged within 500 shared rounds, and the false flags on honest pairs (issue 34).

Simulated floors of dealers of several kinds, each dealing 500 rounds to a watched rated player (box 1) with two to
five other players beside him (rated or anonymous), then `--extra-rounds` more to other players only (his other
stints of the week: a faster dealer deals more of them). Every box-round is a win (even money, 3:2 for a
blackjack), a push or a loss; a dealer errs at his own rates: a winning hand overpaid (by one or two 5 EUR chips:
the table's `wrong_payout`, seen over expected, that the supervisor clears), a bank drawn against the rules (a
favour to every box that won). The colluding dealer errs as an average dealer, and besides lets a short overpayment
(5 EUR) through on 10 % of his accomplice's winning hands.

The box-rounds are generated directly as `SharedRound`s, the shape casino_floor/collusion_store.py reads from the
floor's store (rounds, dealer_work stints, rated sessions, alarms and their clears), and fed to the real detector
(casino_floor/collusion.py) once per floor of `--dealers-per-floor` dealers of each kind, as `table-floor query
collusion` runs over a floor. Printed: one line per kind of pair, the fraction flagged.

Run: python -m bench.collusion [--pairs 1000] [--dealers-per-floor 10] [--seed 34]
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

from casino_floor.collusion import FavouringError, SharedRound, findings

SHARED_ROUNDS = 500
CHIP_CENTS = 500


@dataclass(frozen=True, slots=True)
class DealerKind:
    """A kind of dealer: his rates of favouring errors, his pace (his rounds with other players), and whether he
    colludes with his watched player."""

    name: str
    overpay_rate: float  # of winning hands
    bank_error_rate: float  # of rounds
    pace: float  # his extra rounds with others, as a multiple of --extra-rounds
    colluding: bool = False


KINDS = (
    DealerKind("careful", 0.003, 0.001, 0.8),
    DealerKind("average", 0.01, 0.003, 1.0),
    DealerKind("sloppy", 0.04, 0.01, 1.3),
    DealerKind("fast_sloppy", 0.06, 0.015, 1.8),
    DealerKind("colluding", 0.01, 0.003, 1.0, colluding=True),
)
ACCOMPLICE_RATE = 0.10  # of the accomplice's winning hands


def box_outcome(rng: random.Random) -> int:
    """The box's net in cents: a stake of 10 to 100 EUR won (3:2 for a blackjack), pushed or lost."""
    draw, stake = rng.random(), 1000 + 100 * int(rng.random() * 91)
    if draw < 0.045:
        return stake * 3 // 2
    if draw < 0.43:
        return stake
    if draw < 0.515:
        return 0
    return -stake


def dealer_rounds(rng: random.Random, kind: DealerKind, dealer: str, watched: str, extra_rounds: int
                  ) -> Iterator[SharedRound]:
    """The box-rounds one dealer deals in the bench's week: 500 with the watched player at box 1, then the
    rest."""
    others = [f"{dealer}-p{index}" if rng.random() < 0.6 else "" for index in range(2, 2 + rng.randint(2, 5))]
    alarm = 0
    for number in range(SHARED_ROUNDS + round(extra_rounds * kind.pace)):
        shared = number < SHARED_ROUNDS
        seats = ([(1, watched)] if shared else []) + [(box, player) for box, player in enumerate(others, start=2)]
        if not shared:
            seats += [(1, "")]  # another player takes box 1, anonymous
        bank_error = rng.random() < kind.bank_error_rate
        for box, player in seats:
            net = box_outcome(rng)
            errors: list[FavouringError] = []
            if net > 0:
                if rng.random() < kind.overpay_rate:
                    alarm += 1
                    errors.append(FavouringError(alarm_id=alarm, kind="wrong_payout",
                                                 cents=CHIP_CENTS * rng.randint(1, 2), cleared_by="supervisor"))
                if kind.colluding and player == watched and rng.random() < ACCOMPLICE_RATE:
                    alarm += 1
                    errors.append(FavouringError(alarm_id=alarm, kind="wrong_payout", cents=CHIP_CENTS,
                                                 cleared_by="supervisor"))
                if bank_error:
                    alarm += 1
                    errors.append(FavouringError(alarm_id=alarm, kind="bank_must_stand", cents=net,
                                                 cleared_by="supervisor"))
            yield SharedRound(table_id=f"T{dealer}", round_id=f"T{dealer}-{number + 1}", ts=float(number),
                              dealer=dealer, player=player, box=box, errors=tuple(errors))


@dataclass
class Counts:
    pairs: int = 0
    flagged: int = 0


def run(pairs: int, dealers_per_floor: int, seed: int, extra_rounds: int) -> dict[tuple[str, bool], Counts]:
    """Flagged pairs per (kind of dealer, colluding pair): the watched pair of every dealer, and the colluding
    dealer's other rated players (honest pairs of a colluding dealer)."""
    rng = random.Random(seed)
    counts: dict[tuple[str, bool], Counts] = {}
    floors = -(-pairs // dealers_per_floor)
    for floor in range(floors):
        rounds: list[SharedRound] = []
        watched: dict[tuple[str, str], tuple[str, bool]] = {}
        for kind in KINDS:
            for index in range(dealers_per_floor):
                dealer = f"{kind.name}-{floor}-{index}"
                player = f"w-{dealer}"
                watched[(dealer, player)] = (kind.name, kind.colluding)
                rounds.extend(dealer_rounds(rng, kind, dealer, player, extra_rounds))
        for finding in findings(rounds):
            key = watched.get((finding.dealer, finding.player))
            if key is None:
                if not finding.dealer.startswith("colluding-"):
                    continue
                key = ("colluding", False)  # the colluding dealer's other players
            tally = counts.setdefault(key, Counts())
            tally.pairs += 1
            tally.flagged += finding.flagged
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000, help="watched pairs per kind of dealer")
    parser.add_argument("--dealers-per-floor", type=int, default=10, help="dealers of each kind on one floor")
    parser.add_argument("--extra-rounds", type=int, default=300, help="an average dealer's rounds with others only")
    parser.add_argument("--seed", type=int, default=34)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    counts = run(args.pairs, args.dealers_per_floor, args.seed, args.extra_rounds)
    for (kind, colluding), tally in sorted(counts.items(), key=lambda item: (item[0][1] is False, item[0][0])):
        print(f"collusion dealer={kind} colluding={'yes' if colluding else 'no'} pairs={tally.pairs} "
              f"flagged_500={tally.flagged / tally.pairs:.4f}")
    print(f"seconds={time.perf_counter() - start:.1f}")
    print("command: python -m bench.collusion " + shlex.join(sys.argv[1:] if argv is None else argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
