"""Advantage-play detection against simulated players of known behaviour (issue 23), and what it costs.

For each kind of player (simulators/ap_players.py), `--sessions` sessions of `--rounds` rounds through the
round engine (simulators/ap_sessions.py), scored by table_runtime/rating from the table's record. Prints one
line per kind:

    rating player=KIND counter=yes|no sessions=N flagged_100=F flagged_300=F flagged_1000=F theo_error_pct=E

F: the fraction of sessions flagged at a check up to that round (flags are read after rounds 100, 300 and
1000; a session ends at its first flag). E: 100 x (theo - expected loss) / |expected loss| over the kind's
rounds played, theo = every stake
(doubles and splits included) x the profile's house edge, the expected loss = each round's initial stakes x
minus that round's edge for a basic-strategy player from the cards left (`LinearEdge`). Then `#` lines: the
flags by score, the money figures, the cost per round of each part on this machine, and the linear and
quick edges against the exact one on rounds of real shoes. Then the command.

    python -m bench.rating [--sessions 1000] [--rounds 1000] [--workers CORES] [--seed 1] [--profile fr-2020]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

from simulators.ap_players import COUNTERS, HYPER_KINDS, KINDS
from simulators.ap_sessions import SessionResult, play_session
from table_runtime.errors import RuleOptionError
from table_runtime.game.cards import new_shoe
from table_runtime.game.events import CardAssigned, ShoeStarted
from table_runtime.game.rules import RuleOptions, profile
from table_runtime.rating.detection import SCORES, SessionScores
from table_runtime.rating.round_edge import LinearEdge, exact_edge, quick_edge
from table_runtime.rating.round_facts import RoundFacts
from table_runtime.rating.shoe_state import ShoeState
from table_runtime.strategy import PlayTerms, Strategy, solve

CHECKPOINTS = (100, 300, 1000)
ORDER = ("counter", "cover", "wonger", "hyper", "chaser", "hyperfan", "flat")  # the ones a flag ends early first


@dataclass(frozen=True)
class _Setup:
    rules: RuleOptions
    linear: LinearEdge
    house_edge: float
    rounds: int
    scores: frozenset[str] | None


_SETUP: _Setup | None = None


def _start_worker(setup: _Setup) -> None:
    global _SETUP
    _SETUP = setup


def _session(task: tuple[str, int]) -> SessionResult:
    setup = _SETUP
    assert setup is not None
    kind, seed = task
    checkpoints = tuple(mark for mark in CHECKPOINTS if mark <= setup.rounds)
    return play_session(kind, setup.rules, Strategy.for_rules(setup.rules), setup.linear, setup.rounds, seed,
                        checkpoints, setup.house_edge, stop_when_flagged=True, scores=setup.scores)


def _fraction(results: list[SessionResult], by: int) -> float:
    return sum(1 for result in results if 0 < result.first_flagged <= by) / len(results)


def kind_lines(kind: str, results: list[SessionResult]) -> list[str]:
    theo = sum(result.theo_cents for result in results)
    expected = sum(result.expected_loss_cents for result in results)
    error = 100 * (theo - expected) / abs(expected) if expected else math.inf
    counter = "yes" if kind in COUNTERS else "no"
    line = (f"rating player={kind} counter={counter} sessions={len(results)} "
            + " ".join(f"flagged_{mark}={_fraction(results, mark):.3f}" for mark in (100, 300, 1000))
            + f" theo_error_pct={error:.1f}")
    by_score = Counter(kind for result in results for kind in result.flag_kinds)
    action = sum(result.action_cents for result in results)
    stake = sum(result.stake_cents for result in results)
    losses = [-result.net_cents for result in results]
    mean_loss = sum(losses) / len(losses)
    spread = math.sqrt(sum((loss - mean_loss) ** 2 for loss in losses) / max(len(losses) - 1, 1) / len(losses))
    detail = (f"# {kind}: first flags by score {dict(by_score)}; rounds played {sum(r.rounds for r in results)}; "
              f"initial stakes {stake / 100:.0f}, action {action / 100:.0f} (x{action / max(stake, 1):.3f}); "
              f"theo {theo / 100:.0f}, expected loss {expected / 100:.0f} ({100 * expected / max(stake, 1):+.3f} % "
              f"of initial stakes), actual loss {sum(losses) / 100:.0f} +- {spread * len(losses) / 100:.0f} "
              f"({100 * sum(losses) / max(stake, 1):+.3f} % of initial stakes)")
    return [line, detail]


def cost_lines(rules: RuleOptions, strategy: Strategy, linear: LinearEdge, samples: int, seed: int) -> list[str]:
    """The cost of each part per round, and the linear and quick edges against the exact one, on
    compositions met at the start of rounds of real shoes (a shuffled shoe cut at a random depth)."""
    rng = random.Random(f"rating-costs/{seed}")
    shoe = new_shoe(rules.decks)
    states = []
    for _ in range(samples):
        rng.shuffle(shoe)
        state = ShoeState(rules.decks)
        state.apply(ShoeStarted(shoe_id="S1", burn_cards=0))
        depth = rng.randint(0, len(shoe) - rules.cut_card_depth)
        for card in shoe[:depth]:
            state.apply(CardAssigned(card=card, target="box1.hand0"))
        states.append(state)
    lines = []
    started = time.process_time()
    exact = [exact_edge(state.composition, strategy) for state in states]
    exact_ms = 1000 * (time.process_time() - started) / samples
    started = time.process_time()
    quick = [quick_edge(state.composition, strategy) for state in states]
    quick_ms = 1000 * (time.process_time() - started) / samples
    started = time.process_time()
    repeat = 200
    for _ in range(repeat):
        fitted = [linear.edge(state.composition) for state in states]
    linear_us = 1e6 * (time.process_time() - started) / samples / repeat
    card = shoe[0]
    event = CardAssigned(card=card, target="box1.hand0")
    state = ShoeState(rules.decks)
    started = time.process_time()
    for _ in range(100_000):
        state.left[card.value - 1] += 1  # keep the shoe from running out
        state.apply(event)
    fold_us = 1e6 * (time.process_time() - started) / 100_000
    scores = SessionScores(strategy)
    started = time.process_time()
    for number in range(1000):
        scores.update(RoundFacts(round=number, shoe=f"S{number // 30}", true_count=rng.gauss(0, 2), edge=0.0,
                                 boxes=(1,), stake_cents=rng.choice((1000, 2000)), net_cents=rng.choice((-1, 1))))
    update_us = 1e6 * (time.process_time() - started) / 1000
    started = time.process_time()
    scores.flags()
    flags_ms = 1000 * (time.process_time() - started)

    def rms(values: list[float]) -> float:
        return 100 * math.sqrt(sum((value - truth) ** 2 for value, truth in zip(values, exact, strict=True)) / samples)

    def bias(values: list[float]) -> float:
        return 100 * sum(value - truth for value, truth in zip(values, exact, strict=True)) / samples

    lines.append(f"# CPU time per round (this process): exact_edge {exact_ms:.1f} ms, quick_edge {quick_ms:.1f} ms, "
                 f"LinearEdge "
                 f"{linear_us:.1f} us, the shoe fold {fold_us:.2f} us a card, SessionScores.update "
                 f"{update_us:.1f} us, flags() over 1,000 rounds {flags_ms:.1f} ms ({samples} compositions)")
    lines.append(f"# against exact_edge over {samples} compositions: LinearEdge rms {rms(fitted):.3f} points, "
                 f"mean {bias(fitted):+.3f}; quick_edge rms {rms(quick):.3f}, mean {bias(quick):+.3f} "
                 f"(exact mean {100 * sum(exact) / samples:+.3f} %, spread "
                 f"{100 * math.sqrt(sum(e * e for e in exact) / samples - (sum(exact) / samples) ** 2):.3f})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000, help="sessions per kind of player")
    parser.add_argument("--rounds", type=int, default=1000, help="rounds per session")
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)),
                        help="processes (default: the cores)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", default="fr-casino")
    parser.add_argument("--kinds", default="", help="kinds of player, comma-separated (default: all that the "
                                                   "profile's rules allow; hyper and hyperfan need hyper black jack)")
    parser.add_argument("--scores", default="", help="count only these scores' flags, comma-separated "
                                                      "(default: all four)")
    parser.add_argument("--cost-samples", type=int, default=40, help="compositions timed and compared (exact_edge)")
    args = parser.parse_args(argv)
    if args.sessions < 1 or args.rounds < 1 or args.workers < 1:
        print("rating: --sessions, --rounds and --workers must be at least 1", file=sys.stderr)
        return 2
    unknown = sorted(set(args.kinds.split(",")) - set(KINDS)) if args.kinds else []
    if unknown:
        print(f"rating: unknown kinds {unknown}; known: {', '.join(KINDS)}", file=sys.stderr)
        return 2
    scores = frozenset(args.scores.split(",")) if args.scores else None
    if scores is not None and not scores <= set(SCORES):
        print(f"rating: unknown scores {sorted(scores - set(SCORES))}; known: {', '.join(SCORES)}", file=sys.stderr)
        return 2
    try:
        rules = profile(args.profile)
    except RuleOptionError as error:
        print(f"rating: {error}", file=sys.stderr)
        return 2
    wanted = args.kinds.split(",") if args.kinds else [kind for kind in KINDS
                                                         if rules.hyper_blackjack or kind not in HYPER_KINDS]
    if not rules.hyper_blackjack and HYPER_KINDS & set(wanted):
        print(f"rating: {', '.join(sorted(HYPER_KINDS & set(wanted)))} bet the hyper field: give a profile with "
              "hyper_blackjack (--profile fr-2020)", file=sys.stderr)
        return 2
    strategy = Strategy.for_rules(rules)
    linear = LinearEdge.fitted(strategy)
    setup = _Setup(rules, linear, solve(PlayTerms.from_options(rules)).house_edge, args.rounds, scores)
    kinds = [kind for kind in ORDER if kind in wanted]
    command = "python -m bench.rating " + " ".join(argv if argv is not None else sys.argv[1:])
    print(f"# command: {command}", flush=True)
    print(f"# house edge {100 * setup.house_edge:.3f} %, LinearEdge full shoe {100 * linear.full:+.3f} %", flush=True)
    started, rounds = time.perf_counter(), 0
    with multiprocessing.get_context().Pool(args.workers, initializer=_start_worker, initargs=(setup,)) as pool:
        for kind in kinds:  # one kind at a time, printed as soon as it is done
            tasks = [(kind, args.seed * 1_000_000 + index) for index in range(args.sessions)]
            results = pool.map(_session, tasks, chunksize=4)
            rounds += sum(result.rounds for result in results)
            for line in kind_lines(kind, results):
                print(line, flush=True)
    seconds = time.perf_counter() - started
    print(f"# {rounds} rounds in {seconds:.0f} s on {args.workers} workers ({rounds / seconds:.0f} rounds/s of "
          "wall clock)", flush=True)
    for line in cost_lines(rules, strategy, linear, args.cost_samples, args.seed):
        print(line)
    print(f"# command: {command}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
