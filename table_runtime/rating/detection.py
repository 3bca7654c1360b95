"""Advantage-play scores of one player's session, fed round by round; flags are advice with figures.

`SessionScores.update(facts)` takes one `RoundFacts` (round_facts.py) and only appends to the session's
lists; `flags()` computes the four scores from them and returns a `Flag` for each that passes its threshold,
each with the figures a surveillance officer can check against the record (docs/rating.md):

- bet_count: does the stake follow the true count? Evidence: Spearman's rho of stake and true count, the
  ramp (mean initial stake at an edge below 0 and above +1 %). The test for chance: from one round to the
  next in the same shoe, the change of the stake against the change of the true count (Spearman), with the
  sign of the previous round's result held fixed (a bettor who chases losses reacts to the cards that also
  moved the count), its variance widened for the autocorrelation of both changes (Bartlett); flagged when
  z = rho sqrt(m - 3) / sqrt(inflation) passes `z_threshold`.
- wonging: the same test on the number of boxes he plays (0 when he watches), with the entries and exits
  and the true counts they came at.
- index_plays: departures from the chart at the hands of the Illustrious 18 and insurance: how often he
  departed when the true count called for the index, against when it did not (Fisher's exact test).
- hyper_blackjack: stakes on the BLACK JACK case on rounds the cards left made positive against the others
  (Fisher's exact test).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Final

from table_runtime.game.hyper import ODDS, HyperCase
from table_runtime.rating.indexes import INSURANCE_INDEX, index_for
from table_runtime.rating.round_facts import RoundFacts
from table_runtime.rating.statistics import hypergeometric_upper_tail, inflation, partial, ranks, spearman
from table_runtime.strategy.chart import Action, Strategy

Figure = tuple[str, float | int | str]
SCORES: Final = ("bet_count", "wonging", "index_plays", "hyper_blackjack")  # a flag's `score` is one of these


@dataclass(frozen=True, slots=True, kw_only=True)
class Flag:
    """Advice to the supervisor: which score passed its threshold, and the figures behind it. Not an alarm:
    the supervisor kind of alarm that carries it to the display and the feed is the integration's."""

    score: str  # one of SCORES (advice, not an alarm kind)
    message: str
    rule: str
    figures: tuple[Figure, ...]

    def figure(self, name: str) -> float | int | str:
        return dict(self.figures)[name]


@dataclass(frozen=True, slots=True, kw_only=True)
class DetectionSettings:
    """The thresholds; the defaults are the ones bench/rating measures (bench/README.md)."""

    z_threshold: float = 3.3  # one-sided p about 5e-4 per look
    min_changes: int = 40  # count changes (pairs of rounds of one shoe) before a correlation is judged
    lags: int = 10  # autocorrelation lags in the variance widening
    ramp_edge: float = 0.01  # the ramp compares stakes at an edge < 0 and > this
    index_p: float = 5e-4
    min_index_departures: int = 3
    hyper_odds: int = ODDS[HyperCase.BLACKJACK]  # the BLACK JACK case's winnings per unit (19, 55-4 6°)
    hyper_p: float = 5e-4
    min_hyper_positive_bets: int = 3


@dataclass(slots=True)
class _Opportunities:
    """Chances to depart the way a counter does: (count called for it, departed), in order."""

    seen: list[tuple[bool, bool, str]] = field(default_factory=list)

    def add(self, past: bool, departed: bool, what: str) -> None:
        self.seen.append((past, departed, what))

    def test(self) -> tuple[int, int, int, int, float]:
        """(departures with the count, chances with it, departures without, chances without, one-sided p)."""
        with_count = [departed for past, departed, _ in self.seen if past]
        without = [departed for past, departed, _ in self.seen if not past]
        hits, draws = sum(with_count), len(with_count)
        successes = hits + sum(without)
        p = hypergeometric_upper_tail(hits, draws, successes, len(self.seen)) if hits else 1.0
        return hits, draws, sum(without), len(without), p


class SessionScores:
    """One session's record for detection: per round the true count, edge, stake, boxes, previous result and
    shoe; the index-play and hyper opportunities. Owns nothing else; no I/O."""

    __slots__ = (
        "_boxes",
        "_counts",
        "_edges",
        "_hyper",
        "_indexes",
        "_last_net",
        "_previous",
        "_shoes",
        "_stakes",
        "rounds",
        "settings",
        "strategy",
    )

    def __init__(self, strategy: Strategy, settings: DetectionSettings | None = None) -> None:
        self.strategy = strategy
        self.settings = settings or DetectionSettings()
        self.rounds = 0
        self._counts: list[float] = []
        self._edges: list[float] = []
        self._stakes: list[float] = []
        self._boxes: list[float] = []
        self._previous: list[float] = []  # sign of the result of the round before (0: none, or a push)
        self._shoes: list[str] = []
        self._last_net = 0
        self._indexes = _Opportunities()
        self._hyper = _Opportunities()

    def update(self, facts: RoundFacts) -> None:
        """Fold one round of the session."""
        self.rounds += 1
        self._counts.append(facts.true_count)
        self._edges.append(facts.edge)
        self._stakes.append(facts.stake_cents)
        self._boxes.append(len(facts.boxes))
        self._previous.append(float((self._last_net > 0) - (self._last_net < 0)))
        self._shoes.append(facts.shoe)
        self._last_net = facts.net_cents
        count = facts.true_count
        for decision in facts.decisions:
            play = index_for(decision.total, decision.soft, decision.pair, decision.up, decision.cards)
            if play is None:
                continue
            basic = self.strategy.decide(decision.total, decision.soft, decision.pair, decision.up,
                                         decision.can_double, decision.can_split)
            allowed = ((play.action is not Action.DOUBLE or decision.can_double)
                       and (play.action is not Action.SPLIT or decision.can_split))
            if basic is play.action or not allowed:
                continue  # the chart already plays it (or the rules forbid it): nothing to learn
            self._indexes.add(play.past(count), decision.action is play.action, f"r{facts.round} {play.name}")
        if facts.insurance_offered:
            self._indexes.add(count >= INSURANCE_INDEX, facts.insurance_cents > 0, f"r{facts.round} insurance")
        if facts.bank_blackjack_chance > 0.0:
            positive = facts.bank_blackjack_chance * (self.settings.hyper_odds + 1) > 1.0
            self._hyper.add(positive, facts.hyper_blackjack_cents > 0, f"r{facts.round}")

    # ------------------------------------------------------------------ a checkpoint's state

    def state(self) -> dict[str, Any]:
        """What the session has recorded, as plain JSON (rating/session_state.py); `restored` reads it back."""
        return {"rounds": self.rounds, "counts": self._counts, "edges": self._edges, "stakes": self._stakes,
                "boxes": self._boxes, "previous": self._previous, "shoes": self._shoes, "last_net": self._last_net,
                "indexes": [list(seen) for seen in self._indexes.seen],
                "hyper": [list(seen) for seen in self._hyper.seen]}

    @classmethod
    def restored(cls, strategy: Strategy, settings: DetectionSettings, state: dict[str, Any]) -> SessionScores:
        scores = cls(strategy, settings)
        scores.rounds = int(state["rounds"])
        scores._counts = _numbers(state["counts"])
        scores._edges = _numbers(state["edges"])
        scores._stakes = _numbers(state["stakes"])
        scores._boxes = _numbers(state["boxes"])
        scores._previous = _numbers(state["previous"])
        scores._shoes = [str(value) for value in state["shoes"]]
        scores._last_net = int(state["last_net"])
        scores._indexes.seen = [(bool(past), bool(departed), str(what)) for past, departed, what in state["indexes"]]
        scores._hyper.seen = [(bool(past), bool(departed), str(what)) for past, departed, what in state["hyper"]]
        if not all(len(series) == scores.rounds for series in (scores._counts, scores._edges, scores._stakes,
                                                                scores._boxes, scores._previous, scores._shoes)):
            raise ValueError("a session's scores hold one figure of each kind a round")
        return scores

    # ------------------------------------------------------------------ scores

    def _change_test(self, series: list[float]) -> tuple[float, int]:
        """(z, changes): the change of `series` against the change of the true count, round to round in one
        shoe, with the previous result held fixed, the variance widened for autocorrelation."""
        changes, count_changes, previous = [], [], []
        for i in range(1, self.rounds):
            if self._shoes[i] == self._shoes[i - 1]:
                changes.append(series[i] - series[i - 1])
                count_changes.append(self._counts[i] - self._counts[i - 1])
                previous.append(self._previous[i])
        m = len(changes)
        if m < self.settings.min_changes:
            return 0.0, m
        rank_changes, rank_counts = ranks(changes), ranks(count_changes)
        rho = partial(spearman(changes, count_changes), spearman(changes, previous),
                      spearman(count_changes, previous))
        widened = inflation(rank_changes, rank_counts, self.settings.lags)
        return rho * math.sqrt(m - 3) / math.sqrt(widened), m

    def bet_count(self) -> tuple[Figure, ...]:
        """The figures of the bet/count score (z_change is its test)."""
        played = [i for i in range(self.rounds) if self._stakes[i] > 0]
        stakes = [self._stakes[i] for i in played]
        rho = spearman(stakes, [self._counts[i] for i in played])
        low = [self._stakes[i] for i in played if self._edges[i] < 0.0]
        high = [self._stakes[i] for i in played if self._edges[i] > self.settings.ramp_edge]
        z, changes = self._change_test(self._stakes)
        return (("rounds", self.rounds), ("rounds_played", len(played)), ("rho_stake_true_count", round(rho, 3)),
                ("mean_stake_edge_below_0_cents", round(sum(low) / len(low)) if low else 0),
                ("rounds_edge_below_0", len(low)),
                ("mean_stake_edge_above_1pct_cents", round(sum(high) / len(high)) if high else 0),
                ("rounds_edge_above_1pct", len(high)),
                ("min_stake_cents", int(min(stakes, default=0))), ("max_stake_cents", int(max(stakes, default=0))),
                ("z_change", round(z, 2)), ("count_changes", changes))

    def wonging(self) -> tuple[Figure, ...]:
        """The figures of the wonging score (z_change is its test, entries + exits at least 3)."""
        moves = [(self._boxes[i] - self._boxes[i - 1], self._counts[i]) for i in range(1, self.rounds)
                 if self._boxes[i] != self._boxes[i - 1] and self._shoes[i] == self._shoes[i - 1]]
        entries = [count for move, count in moves if move > 0]
        exits = [count for move, count in moves if move < 0]
        played = [self._counts[i] for i in range(self.rounds) if self._boxes[i] > 0]
        z, changes = self._change_test(self._boxes)
        return (("entries", len(entries)), ("mean_true_count_at_entry", _mean(entries)),
                ("exits", len(exits)), ("mean_true_count_at_exit", _mean(exits)),
                ("mean_true_count_played", _mean(played)), ("mean_true_count_all", _mean(self._counts)),
                ("share_played", round(len(played) / self.rounds, 3) if self.rounds else 0.0),
                ("z_change", round(z, 2)), ("count_changes", changes))

    def index_plays(self) -> tuple[Figure, ...]:
        """The figures of the index-play score (p is Fisher's one-sided test)."""
        hits, chances, others, other_chances, p = self._indexes.test()
        examples = "; ".join(what for past, departed, what in self._indexes.seen if past and departed)
        return (("departures_count_called", hits), ("chances_count_called", chances),
                ("departures_count_not_called", others), ("chances_count_not_called", other_chances),
                ("p", float(f"{p:.3g}")), ("plays", examples[:400]))

    def hyper_blackjack(self) -> tuple[Figure, ...]:
        """The figures of the hyper BLACK JACK score (p is Fisher's one-sided test)."""
        hits, chances, others, other_chances, p = self._hyper.test()
        return (("bets_positive_rounds", hits), ("positive_rounds", chances), ("bets_other_rounds", others),
                ("other_rounds", other_chances), ("odds", self.settings.hyper_odds), ("p", float(f"{p:.3g}")))

    def flags(self) -> list[Flag]:
        """The scores past their thresholds, each with its figures."""
        settings = self.settings
        found = []
        figures = self.bet_count()
        values = dict(figures)
        if _number(values["z_change"]) >= settings.z_threshold:
            found.append(Flag(score="bet_count", figures=figures, rule="stake follows the true count",
                              message=f"stake follows the true count: rho {values['rho_stake_true_count']}, "
                                      f"mean stake {values['mean_stake_edge_below_0_cents']} cents at an edge "
                                      f"below 0, {values['mean_stake_edge_above_1pct_cents']} above +1 %, "
                                      f"z {values['z_change']} over {values['count_changes']} count changes"))
        figures = self.wonging()
        values = dict(figures)
        moves = _number(values["entries"]) + _number(values["exits"])
        if moves >= 3 and _number(values["z_change"]) >= settings.z_threshold:
            found.append(Flag(score="wonging", figures=figures, rule="boxes played follow the true count",
                              message=f"plays more boxes as the true count rises: {values['entries']} entries at "
                                      f"a mean true count {values['mean_true_count_at_entry']}, {values['exits']} "
                                      f"exits at {values['mean_true_count_at_exit']}, z {values['z_change']}"))
        figures = self.index_plays()
        values = dict(figures)
        if _number(values["departures_count_called"]) >= settings.min_index_departures and \
                _number(values["p"]) <= settings.index_p:
            found.append(Flag(score="index_plays", figures=figures, rule="departures from the chart follow the count",
                              message=f"departs from basic strategy as the count calls for: "
                                      f"{values['departures_count_called']} of {values['chances_count_called']} "
                                      f"against {values['departures_count_not_called']} of "
                                      f"{values['chances_count_not_called']} (p {values['p']})"))
        figures = self.hyper_blackjack()
        values = dict(figures)
        if _number(values["bets_positive_rounds"]) >= settings.min_hyper_positive_bets and \
                _number(values["p"]) <= settings.hyper_p:
            found.append(Flag(score="hyper_blackjack", figures=figures, rule="BLACK JACK case bet when positive",
                              message=f"bets the BLACK JACK case when the shoe makes it positive: "
                                      f"{values['bets_positive_rounds']} of {values['positive_rounds']} rounds "
                                      f"against {values['bets_other_rounds']} of {values['other_rounds']}"))
        return found


def _numbers(values: list[Any]) -> list[float]:
    """A state's series as it was kept (an int stays an int: the same state again, the same figures)."""
    if not all(isinstance(value, int | float) and not isinstance(value, bool) for value in values):
        raise TypeError("a session's series holds numbers only")
    return list(values)


def _number(value: float | int | str) -> float:
    if isinstance(value, str):
        raise TypeError(f"a figure {value!r} where a number was expected")
    return float(value)


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0
