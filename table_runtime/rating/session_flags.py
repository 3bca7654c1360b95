"""The detection's scores of each rated session, read at fixed points: a flag becomes advice to the supervisor.

`SessionAdvice` follows the shoe (`ShoeState`: the true count, the cards left) through the events the
journal's fold makes, keeps the figures of the shoe before each round (true count, the edge of a
basic-strategy player from the cards left by the first-order model `LinearEdge`, the bank's blackjack chance),
and at each settled round feeds every open seated session's `SessionScores` (detection.py) its `RoundFacts`:
his box's stakes and decisions, or nothing staked when he only watched. The flags are read every `every`
rounds of a session and when it closes (docs/rating.md "Reading the flags": fixed looks, not every round).
A score flagged in a session is advised once: an `Alarm` of kind `advantage_play` (a supervisor's kind, never
halting: advice only, nothing of the game changes) naming the box, the figures as whole numbers (rho and z in
thousandths, p in millionths, the ramp's mean stakes in cents) and the rule. The alarms gather in `raised`
for the runtime to journal (runtime/rating_watch.py). Pure: no clock, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from typing import Final

from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm, Event, RoundStarted, ShoeStarted
from table_runtime.game.round import Round
from table_runtime.rating.detection import DetectionSettings, Flag, SessionScores
from table_runtime.rating.round_edge import LinearEdge
from table_runtime.rating.round_facts import facts_of_round
from table_runtime.rating.shoe_state import ShoeState
from table_runtime.strategy.chart import Strategy
from table_runtime.strategy.terms import PlayTerms

RULE: Final = citations.ADVANTAGE_PLAY
WATCHING: Final = "\x00watching"  # an owner no stake has: the facts of a round he only watched


@dataclass(frozen=True, slots=True)
class AdviceSettings:
    """When the flags are read (every `every` rounds of a session, and at its end) and the detection's thresholds."""

    every: int = 100
    detection: DetectionSettings = field(default_factory=DetectionSettings)


@cache
def edge_model(terms: PlayTerms) -> LinearEdge:
    """The first-order edge of the cards left, fitted once per set of play terms (about a second)."""
    return LinearEdge.fitted(Strategy.for_rules(terms))


def _whole(name: str, value: float | int | str) -> tuple[str, int] | None:
    """A figure as an alarm amount (whole numbers only): counts and cents as they are, p in millionths, other
    ratios in thousandths; text (the plays) is in the message."""
    if isinstance(value, str):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return name, value
    if name == "p":
        return "p_ppm", round(value * 1_000_000)
    return f"{name}_x1000", round(value * 1000)


def flag_alarm(flag: Flag, box: int, session: str, player: str | None) -> Alarm:
    """The supervisor's alarm of one flag on the session `session` of `box`."""
    amounts = [pair for pair in (_whole(name, value) for name, value in flag.figures) if pair is not None]
    figures = dict(flag.figures)
    z = figures.get("z_change")
    if isinstance(z, int | float) and not isinstance(z, bool):  # the change test's one-sided p
        amounts.append(("p_ppm", round(0.5 * math.erfc(float(z) / math.sqrt(2)) * 1_000_000)))
    who = f"player {player}" if player else "an anonymous player"
    return Alarm(kind=AlarmKind.ADVANTAGE_PLAY, box=box, rule=RULE + flag.rule, amounts=tuple(amounts),
                 message=f"box{box}: {who} (session {session}): {flag.score}: {flag.message}")


class SessionAdvice:
    """The shoe as the players see it, and the detection's scores of each open seated session."""

    def __init__(self, terms: PlayTerms, settings: AdviceSettings | None = None, *,
                 edges: LinearEdge | None = None) -> None:
        self.settings = settings or AdviceSettings()
        self.strategy = Strategy.for_rules(terms)
        self.edges = edge_model(terms) if edges is None else edges  # given: the one fitted before for these terms
        self.shoe = ShoeState(terms.decks)
        self.shoe_id = ""
        self.before = (0.0, self.edges.full, 0.0)  # true count, edge, bank blackjack chance before the round
        self.scores: dict[str, SessionScores] = {}
        self.flagged: dict[str, set[str]] = {}
        self.raised: list[Alarm] = []

    def event(self, event: Event) -> None:
        """Fold one event of the table; a round's start keeps the shoe's figures before its cards."""
        if isinstance(event, ShoeStarted):
            self.shoe_id = event.shoe_id
        if isinstance(event, RoundStarted):
            self.before = (self.shoe.true_count, self.edges.edge(self.shoe.composition),
                           self.shoe.bank_blackjack_chance)
        self.shoe.apply(event)

    def round_settled(self, round_: Round, sessions: list[tuple[str, int, str | None, str | None]]) -> None:
        """A settled round for the open seated sessions: (session id, box, player, the owner of his stake this
        round or None when he watched)."""
        true_count, edge, chance = self.before
        for session, box, player, owner in sessions:
            scores = self.scores.setdefault(session, SessionScores(self.strategy, self.settings.detection))
            scores.update(facts_of_round(round_, owner or WATCHING, shoe=self.shoe_id, true_count=true_count,
                                         edge=edge, bank_blackjack_chance=chance))
            if scores.rounds % self.settings.every == 0:
                self._look(session, box, player)

    def session_closed(self, session: str, box: int, player: str | None) -> None:
        """The session ended: a last look at its scores (unless one was just taken), then they are dropped."""
        scores = self.scores.get(session)
        if scores is not None and scores.rounds % self.settings.every:
            self._look(session, box, player)
        self.scores.pop(session, None)
        self.flagged.pop(session, None)

    def _look(self, session: str, box: int, player: str | None) -> None:
        advised = self.flagged.setdefault(session, set())
        for flag in self.scores[session].flags():
            if flag.score not in advised:
                advised.add(flag.score)
                self.raised.append(flag_alarm(flag, box, session, player))
