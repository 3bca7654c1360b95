"""Monte Carlo of a rule profile through the table's own round machine.

Every card, decision and payout goes through `Table.apply`, the state machine
the table runs: no second, simplified game. The shoe is dealt the way the
dealer deals it (docs/rules.md "Equipment and seats"): shuffle (`ShoeShuffled`),
the burn cards drawn and burned by the engine, the cut card `cut_card_depth`
cards from the end (`CutCardReached` when it comes out, the round finishes,
then a new shoe), or a new shoe every round when the rules say so.

The 2020 amendments are the engine's own too: a hand the chart gives up is the
engine's `Surrender` (55-4 1°, settled by game/surrender.py), and hyper black
jack stakes are locked with the bets (`BetsLocked.hyper`, 55-4 6°), so the
engine completes the bank's hand for them and pays them
(game/hyper_settlement.py); the tally counts the bank's final result.

Each worker process owns an RNG seeded from (seed, worker index), so a run is
reproducible for a given seed and number of workers; with one worker it runs
in the calling process.
"""

from __future__ import annotations

import math
import multiprocessing
import random
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any, Final

from simulators.players import BasicStrategyPlayer, decide
from simulators.simulation_errors import BoxCountError, ShoeExhaustedError, SimulationError
from table_runtime.game.cards import ALL_CARDS, new_shoe
from table_runtime.game.events import Alarm, CardHeld, Event, Payout
from table_runtime.game.hyper import ODDS, HyperCase, bank_result
from table_runtime.game.inputs import (
    BetsLocked,
    BoxBet,
    CardDrawn,
    Confirm,
    CutCardReached,
    HyperBet,
    ShoeShuffled,
    Void,
)
from table_runtime.game.round import BANK, DEALING, INSURANCE, PLAYING, SETTLEMENT, Round
from table_runtime.game.rules import RuleOptions
from table_runtime.game.table import Table

UNIT_CENTS: Final = 1000  # one initial bet; even, so 3:2 is exact
PROGRESS_EVERY: Final = 5000  # rounds between progress reports of a worker

# Inputs are immutable: one instance of each is applied again and again (Final: constants in a mypyc build).
_DRAWN: Final = tuple(CardDrawn(card=card) for card in ALL_CARDS)
_CUT_CARD: Final = CutCardReached()
_CONFIRM: Final = Confirm()
CASES: Final = tuple(HyperCase)


class DealingShoe:
    """The physical shoe: its card order, the cut card, and the dealer's shuffle-burn-deal procedure.

    Cards are drawn by a lazy Fisher-Yates shuffle: each draw picks uniformly
    among the cards not yet drawn, which deals exactly the order of a full
    shuffle without paying for the cards a shoe never reaches (`online`). The
    shoe holds each card as the `CardDrawn` input that reports it.
    """

    __slots__ = ("_apply", "_cards", "_cut_at", "_position", "_random", "_size", "rules", "shoes", "table")

    def __init__(self, table: Table, rng: random.Random) -> None:
        self.table = table
        self.rules = table.rules
        self.shoes = 0
        self._apply = table.apply
        self._random = rng.random
        self._cards = [_DRAWN[card.index] for card in new_shoe(self.rules.decks)]
        self._size = len(self._cards)  # the shoe's card count never changes: not re-read per draw
        self._cut_at = self._size - self.rules.cut_card_depth
        self._position = 0

    @property
    def needs_new_shoe(self) -> bool:
        """Before a round: no shoe yet, the cut card came out, or the rules shuffle every round."""
        shoe = self.table.shoe
        return not shoe.loaded or shoe.cut_card_reached or (self.rules.shuffle_every_round and shoe.rounds > 0)

    def new_shoe(self) -> None:
        """Shuffle and load (`ShoeShuffled`), then draw the burn cards, which the engine burns."""
        self.shoes += 1
        self._apply(ShoeShuffled(shoe_id=f"sim-{self.shoes}"))
        self._position = 0
        for _ in range(self.rules.burn_cards):
            self.draw()

    def draw(self) -> list[Event]:
        """The next card out of the shoe, after the cut card if it comes first; the events of the card."""
        return self._apply(self._next())

    def _next(self) -> CardDrawn:
        position = self._position
        cards = self._cards
        if position == self._cut_at and not self.table.shoe.cut_card_reached:
            self._apply(_CUT_CARD)
        size = self._size
        if position == size:
            raise ShoeExhaustedError(f"shoe sim-{self.shoes} is empty: the round needs another card")
        pick = position + int(self._random() * (size - position))
        card = cards[pick]
        cards[pick] = cards[position]
        cards[position] = card
        self._position = position + 1
        return card


def flat_bets(boxes: int, cents: int = UNIT_CENTS, hyper_cases: tuple[HyperCase, ...] = ()) -> BetsLocked:
    """The same stake on boxes 1..`boxes`, one player each; with `hyper_cases`, box 1's player also stakes
    `cents` on each of those hyper black jack cases (55-4 6°)."""
    return BetsLocked(bets=tuple(BoxBet(box=box, seated_cents=cents, owner=f"player{box}")
                                 for box in range(1, boxes + 1)),
                      hyper=tuple(HyperBet(case=case.value, box=1, cents=cents, owner="player1")
                                  for case in hyper_cases))


def play_round(shoe: DealingShoe, bets: BetsLocked, player: BasicStrategyPlayer) -> Round:
    """One round from the bet lock to settlement, every box played by `player`; returns the settled round.

    The player's decisions are the engine's inputs, a surrender included where the rules offer it (55-4 1°).
    The caller reads `round_.payouts`, then applies `Confirm` to close it.
    """
    table = shoe.table
    if shoe.needs_new_shoe:
        shoe.new_shoe()
    apply = table.apply
    events = apply(bets)
    round_ = table.round
    if round_ is None or round_.phase != DEALING:
        raise SimulationError(f"bets refused: {[event for event in events if type(event) is Alarm]}")
    draw = shoe.draw
    while True:
        phase = round_.phase
        if phase == PLAYING:
            decision = decide(round_, player)
            if decision is None:
                draw()
            else:
                events = apply(decision)
                if events and type(events[0]) is Alarm:
                    raise SimulationError(f"{decision!r} refused: {events[0].message}")
        elif phase == DEALING:
            draw()
        elif phase == BANK:  # the engine settles as soon as the bank may stop (with hyper stakes: at 17 or more)
            if type(draw()[-1]) is CardHeld:
                raise SimulationError(f"round {round_.number}: the bank refused a card in phase bank")
        elif phase == INSURANCE:
            apply(_CONFIRM)  # nobody insures
        elif phase == SETTLEMENT:
            return round_
        else:
            raise SimulationError(f"round {round_.number} left play in phase {phase}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Tally:
    """What a number of simulated rounds added up to, in exact integers (merges across workers)."""

    rounds: int = 0
    hands: int = 0  # player hands settled, split hands included
    initial_bets: int = 0  # boxes played, one initial bet each
    bet_cents: int = 0
    net_cents: int = 0  # paid to the players (negative: the house won)
    net_squares: int = 0  # sum over rounds of (round net in cents) ** 2, for the standard error
    blackjacks: int = 0  # player naturals
    voided: int = 0  # rounds voided because the shoe ran out (not counted in the other fields)
    shoes: int = 0
    surrenders: int = 0  # hands given up (55-4 1°)
    hyper_net_cents: int = 0  # what the engine paid the hyper stakes, net (55-4 6°)
    # The bank's final result of each round played with hyper bets (55-4 6°), in the order of HyperCase.
    result_17: int = 0
    result_18: int = 0
    result_19: int = 0
    result_20: int = 0
    result_21: int = 0
    result_blackjack: int = 0
    result_bust: int = 0

    def result_counts(self) -> tuple[int, ...]:
        return (self.result_17, self.result_18, self.result_19, self.result_20, self.result_21,
                self.result_blackjack, self.result_bust)

    def merged(self, other: Tally) -> Tally:
        return Tally(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(Tally)})


def play_rounds(rules: RuleOptions, rounds: int, boxes: int, rng: random.Random,
                player: BasicStrategyPlayer | None = None,
                progress: Callable[[int], None] | None = None,
                on_round: Callable[[Round], None] | None = None,
                hyper_cases: tuple[HyperCase, ...] = ()) -> Tally:
    """Play `rounds` rounds of `boxes` flat unit bets through a fresh table, every box played by `player`
    (default: the basic strategy of `rules`), surrendering where the rules offer it; with `hyper_cases`, a unit
    on each of those hyper cases every round: the engine completes the bank's hand and pays them, and the
    bank's final result is counted. `net_cents` is the boxes' alone (the house edge), `hyper_net_cents` the field's.

    `progress(n)` is told every `PROGRESS_EVERY` rounds; `on_round(round_)`
    sees each settled round before it is closed (for checks in tests).
    """
    table = Table(rules)
    shoe = DealingShoe(table, rng)
    player = player or BasicStrategyPlayer.for_rules(rules)
    bets = flat_bets(boxes, hyper_cases=hyper_cases)
    staked = boxes * UNIT_CENTS
    apply = table.apply
    hands = net_total = squares = blackjacks = voided = surrenders = hyper_net = 0
    hyper = bool(hyper_cases)
    results = [0] * len(CASES)
    for played in range(1, rounds + 1):
        try:
            round_ = play_round(shoe, bets, player)
        except ShoeExhaustedError:
            apply(Void(by="simulation", reason="shoe exhausted"))
            voided += 1
            continue
        if on_round is not None:
            on_round(round_)
        net = 0
        payout: Payout
        if hyper:
            for payout in round_.payouts:
                if payout.kind.startswith("hyper."):
                    hyper_net += payout.net_cents
                else:
                    net += payout.net_cents
            bank = round_.bank
            results[CASES.index(bank_result(bank.total, len(bank.cards)))] += 1
        else:
            for payout in round_.payouts:
                net += payout.net_cents
        net_total += net
        squares += net * net
        for hand in round_.hands:
            hands += 1
            if hand.blackjack:
                blackjacks += 1
            if hand.surrendered:
                surrenders += 1
        apply(_CONFIRM)
        if progress is not None and played % PROGRESS_EVERY == 0:
            progress(PROGRESS_EVERY)
    if progress is not None and rounds % PROGRESS_EVERY:
        progress(rounds % PROGRESS_EVERY)
    done = rounds - voided
    return Tally(rounds=done, hands=hands, initial_bets=done * boxes, bet_cents=done * staked, net_cents=net_total,
                 net_squares=squares, blackjacks=blackjacks, voided=voided, shoes=shoe.shoes, surrenders=surrenders,
                 hyper_net_cents=hyper_net, result_17=results[0], result_18=results[1], result_19=results[2],
                 result_20=results[3], result_21=results[4], result_blackjack=results[5], result_bust=results[6])


def hyper_document(tally: Tally, cases: tuple[HyperCase, ...]) -> dict[str, Any]:
    """The bank's final results counted over rounds (in the order of HyperCase), and what one unit on each
    case returned: EV p (N + 1) - 1 with its standard error (N + 1) sqrt(p (1 - p) / rounds), rounds being
    the samples. `net_units`: what the engine paid one unit on each of `cases` every round."""
    counts = tally.result_counts()
    rounds = sum(counts)
    chances = {case: count / rounds if rounds else 0.0 for case, count in zip(CASES, counts, strict=True)}
    return {
        "cases_bet": [case.value for case in cases],
        "rounds": rounds,
        "net_units": tally.hyper_net_cents / UNIT_CENTS,
        "bank_final_result": {case.value: p for case, p in chances.items()},
        "ev": {case.value: p * (ODDS[case] + 1) - 1 for case, p in chances.items()},
        "stderr": {case.value: (ODDS[case] + 1) * math.sqrt(p * (1 - p) / rounds) if rounds else math.nan
                   for case, p in chances.items()},
    }


def worker_random(seed: int, worker: int) -> random.Random:
    """The RNG of worker `worker` in a run seeded `seed` (string seeds hash the same in every process)."""
    return random.Random(f"blackjack-simulation/{seed}/{worker}")


def shares(rounds: int, workers: int) -> list[int]:
    """Rounds per worker, as even as possible, the first workers taking one more."""
    base, extra = divmod(rounds, workers)
    return [base + (1 if index < extra else 0) for index in range(workers)]


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulationResult:
    """A finished run: the tally, its statistics, and how fast it went."""

    profile: str
    boxes: int
    seed: int
    workers: int
    seconds: float
    tally: Tally
    hyper_cases: tuple[HyperCase, ...] = ()  # cases with a unit on them every round (55-4 6°)

    @property
    def ev(self) -> float:
        """Net per initial bet; negative when the players lose."""
        return self.tally.net_cents / self.tally.bet_cents if self.tally.bet_cents else 0.0

    @property
    def stderr(self) -> float:
        """Standard error of `ev`, rounds being the independent samples (the boxes of a round share a bank)."""
        tally = self.tally
        if tally.rounds < 2:
            return math.nan
        per_round = tally.bet_cents / tally.rounds  # flat bets: the same in every round
        mean = tally.net_cents / tally.rounds
        variance = (tally.net_squares - tally.rounds * mean * mean) / (tally.rounds - 1)
        return math.sqrt(max(variance, 0.0) / tally.rounds) / per_round

    @property
    def blackjack_rate(self) -> float:
        return self.tally.blackjacks / self.tally.initial_bets if self.tally.initial_bets else 0.0

    @property
    def rounds_per_second(self) -> float:
        return (self.tally.rounds + self.tally.voided) / self.seconds if self.seconds > 0 else math.inf

    def document(self) -> dict[str, Any]:
        """The JSON document of `table-runtime simulate --json`."""
        tally = self.tally
        return {
            "profile": self.profile,
            "rounds": tally.rounds,
            "boxes": self.boxes,
            "hands": tally.hands,
            "initial_bet_units": tally.initial_bets,
            "net_units": tally.net_cents / UNIT_CENTS,
            "ev": self.ev,
            "stderr": self.stderr,
            "blackjack_rate": self.blackjack_rate,
            "rounds_per_second": self.rounds_per_second,
            "seed": self.seed,
            "workers": self.workers,
            "shoes": tally.shoes,
            "voided_rounds": tally.voided,
            "surrenders": tally.surrenders,
        } | ({"hyper": hyper_document(tally, self.hyper_cases)} if self.hyper_cases else {})


def simulate(rules: RuleOptions, rounds: int, *, boxes: int | None = None, seed: int = 0, workers: int = 1,
             progress: Callable[[int], None] | None = None,
             hyper_cases: tuple[HyperCase, ...] | None = None) -> SimulationResult:
    """Play `rounds` rounds of `rules` on `boxes` boxes split over `workers` processes.

    `boxes` defaults to the fewest the rules deal to (`min_boxes_to_deal`). `hyper_cases`: a unit on each
    of these hyper black jack cases every round (default: all seven where the rules offer the field).
    `progress(n)` is called in this process as workers report n more rounds.
    """
    if boxes is None:
        boxes = rules.min_boxes_to_deal
    if not rules.min_boxes_to_deal <= boxes <= rules.boxes:
        raise BoxCountError(
            f"--boxes {boxes}: {rules.profile} deals to {rules.min_boxes_to_deal} to {rules.boxes} boxes")
    if rounds < 0 or workers < 1:
        raise ValueError(f"need rounds >= 0 and workers >= 1, got {rounds} and {workers}")
    if hyper_cases is None:
        hyper_cases = CASES if rules.hyper_blackjack else ()
    player = BasicStrategyPlayer.for_rules(rules)  # computed once, before the clock and the workers start
    started = time.perf_counter()
    if workers == 1:
        tally = play_rounds(rules, rounds, boxes, worker_random(seed, 0), player, progress, hyper_cases=hyper_cases)
    else:
        tally = _in_processes(rules, player, shares(rounds, workers), boxes, seed, progress, hyper_cases)
    seconds = time.perf_counter() - started
    return SimulationResult(profile=rules.profile, boxes=boxes, seed=seed, workers=workers, seconds=seconds,
                            tally=tally, hyper_cases=hyper_cases)


def _in_processes(rules: RuleOptions, player: BasicStrategyPlayer, counts: list[int], boxes: int, seed: int,
                  progress: Callable[[int], None] | None, hyper_cases: tuple[HyperCase, ...]) -> Tally:
    context = multiprocessing.get_context()
    queue: Any = context.Queue()
    processes = [context.Process(target=_worker, args=(rules, player, count, boxes, seed, index, queue, hyper_cases),
                                 daemon=True)
                 for index, count in enumerate(counts)]
    for process in processes:
        process.start()
    tallies: dict[int, Tally] = {}
    try:
        while len(tallies) < len(processes):
            kind, index, payload = queue.get()
            if kind == "progress":
                if progress is not None:
                    progress(payload)
            elif kind == "done":
                tallies[index] = Tally(**payload)
            else:
                raise SimulationError(f"worker {index} failed:\n{payload}")
    finally:
        for process in processes:
            if process.is_alive() and len(tallies) < len(processes):
                process.terminate()
            process.join()
    total = Tally()
    for index in range(len(processes)):
        total = total.merged(tallies[index])
    return total


def _worker(rules: RuleOptions, player: BasicStrategyPlayer, rounds: int, boxes: int, seed: int, index: int,
            queue: Any, hyper_cases: tuple[HyperCase, ...]) -> None:
    try:
        tally = play_rounds(rules, rounds, boxes, worker_random(seed, index), player,
                            lambda count: queue.put(("progress", index, count)), hyper_cases=hyper_cases)
    except Exception:  # reported to the parent, which raises it there
        queue.put(("error", index, traceback.format_exc()))
        return
    queue.put(("done", index, asdict(tally)))  # a dict: a frozen class compiled by mypyc does not unpickle
