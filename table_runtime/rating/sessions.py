"""Rated sessions: who played at the table, how long, how much, and what the house expected to win from him.

`RatedSessions.observe(seq, ts, item, events, round_)` is fed, row by row, what the journal's one fold
(core/record.py) made of each row: the input folded (None for the other rows), the events it caused and the
round the table then holds; `rating/session_fold.py` does the feeding. It returns the messages of the
`ratings` channel the row caused (docs/feed/README.md, docs/rating.md), so a replay of the journal gives
the same messages. Times are the journal rows' `ts`: no clock is read.

A session is one player's stay on one box, seated (`PlayerSeated` .. `SeatCleared`, another player seated on
the box, or a move that keeps it going: `PlayerMoved`) or behind it (`BehindJoined` .. `BehindLeft`). A box
whose stake nobody was named for is an anonymous session (player null), from the first round it has a stake
to the first round it has none (the box emptied) or a seat input on it. The round's stakes are the
session's that held the box when the bets were locked (a move in a round moves nothing of that round).

Per session: time played (seated, less the pauses), rounds with a stake, hands (splits count), handle (every
stake: doubles, splits and hyper stakes; not insurance), buy-ins (`BuyIn` naming his id, else his box),
win (settlement's net, insurance included), theo = handle x the rules' house edge, theo_skill = theo + what
his own decisions gave away against the best play for the cards then known (rating/decision_cost.py; a
player behind takes no decision: his theo_skill is his theo). Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from table_runtime.core.buy_ins import BuyIn
from table_runtime.core.seat_changes import BehindJoined, BehindLeft, PlayerMoved, PlayerPaused, PlayerResumed
from table_runtime.core.seating import PlayerSeated, SeatCleared
from table_runtime.game.box import BoxState
from table_runtime.game.events import Event, RoundClosed, RoundStarted, RoundVoided
from table_runtime.game.round import Round
from table_runtime.game.rules import RuleOptions
from table_runtime.rating.decision_cost import hand_cost, house_edge, split_cost
from table_runtime.rating.round_edge import LinearEdge
from table_runtime.rating.session_flags import AdviceSettings, SessionAdvice
from table_runtime.strategy.terms import PlayTerms


@dataclass(frozen=True, slots=True, kw_only=True)
class RatingModels:
    """What the rated sessions compute once per set of play terms: the house edge, the advice's edge model."""

    house_edge: float
    edges: LinearEdge


STARTED: Final = "session_started"
UPDATED: Final = "session_updated"
CLOSED: Final = "session_closed"
Seat = tuple[int, bool]  # (box, behind)
MESSAGE_FIELDS: Final = ("type", "table", "session", "player", "box", "started_at", "ended_at", "seconds_played",
                         "rounds", "hands", "handle_cents", "average_bet_cents", "buy_in_cents", "win_cents",
                         "theo_cents", "theo_skill_cents", "edge_pct", "skill_edge_pct", "seq", "round")
"""A `ratings` message's fields in the order it is sent (the journal keeps a body's keys sorted)."""
ROUND_FIELDS: Final = ("round_id", "stake_cents", "win_cents", "theo_cents", "theo_skill_cents")


def in_message_order(message: Mapping[str, Any]) -> dict[str, Any]:
    """A `ratings` message read back from its journal row, its fields in the order `_message` makes them (the same
    bytes on the feed); a field it does not name goes last, as it is."""
    ordered = {key: message[key] for key in MESSAGE_FIELDS if key in message}
    line = ordered.get("round")
    if isinstance(line, Mapping):
        ordered["round"] = {**{key: line[key] for key in ROUND_FIELDS if key in line},
                            **{key: value for key, value in line.items() if key not in ROUND_FIELDS}}
    return {**ordered, **{key: value for key, value in message.items() if key not in ordered}}


def half_up(value: float) -> int:
    """Cents rounded half up (theo is an expectation: its last half cent goes to the house)."""
    return math.floor(value + 0.5)


def theo_cents(stake: int, edge: float, cost: float) -> tuple[int, int]:
    """Theo both ways, in cents: `stake` x the house edge, and that plus what his own decisions gave away."""
    theo = stake * edge
    return half_up(theo), half_up(theo + cost)


def iso(ts: float) -> str:
    """A journal `ts` as ISO-8601 UTC to the millisecond: "2026-12-01T21:04:05.123Z". Computed (the civil date of
    a day number, proleptic Gregorian), not through the time libraries, which the pure core does not import."""
    millis = math.floor(ts * 1000 + 0.5)
    days, in_day = divmod(millis, 86_400_000)
    era, day_of_era = divmod(days + 719_468, 146_097)  # eras of 400 years from 0000-03-01
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153  # 0 = March
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    year = year_of_era + era * 400 + (1 if month <= 2 else 0)
    seconds, milli = divmod(in_day, 1000)
    return (f"{year:04d}-{month:02d}-{day:02d}T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
            f".{milli:03d}Z")


@dataclass(slots=True)
class RatedSession:
    """One player's session and its totals so far."""

    session: str
    player: str | None
    box: int
    behind: bool
    started_at: float
    ended_at: float | None = None
    played: float = 0.0  # seconds played up to `since`
    since: float | None = None  # the start of the stretch being played; None while paused
    rounds: int = 0
    hands: int = 0
    handle: int = 0
    buy_in: int = 0
    win: int = 0
    cost: float = 0.0  # cents his decisions gave away (expected)
    last_round: dict[str, Any] | None = field(default=None)

    def seconds(self, now: float) -> int:
        return int(self.played + (now - self.since if self.since is not None else 0.0))

    def pause(self, now: float) -> None:
        if self.since is not None:
            self.played += now - self.since
            self.since = None


class RatedSessions:
    """The open sessions of one table, by (box, behind), and what they have recorded."""

    def __init__(self, table_id: str, rules: RuleOptions, *, advice: AdviceSettings | None = None,
                 models: RatingModels | None = None) -> None:
        self.table_id = table_id
        self.terms = PlayTerms.from_options(rules)
        # The house edge (and the advice's edge model) of the play terms: computed here, or given as a checkpoint of
        # the rated sessions keeps them (runtime/rating_worker.py: they cost seconds to compute again).
        self.edge = house_edge(self.terms) if models is None else models.house_edge
        # The detection's scores of the seated sessions and their flags (session_flags.py), when asked for.
        self.advice = None if advice is None else SessionAdvice(
            self.terms, advice, edges=None if models is None else models.edges)
        self.open: dict[Seat, RatedSession] = {}
        self._round: dict[Seat, RatedSession] = {}  # who held each staked seat when the bets were locked

    # -- the fold -----------------------------------------------------------------------------
    def observe(self, seq: int, ts: float, item: object, events: list[Event],
                round_: Round | None) -> list[dict[str, Any]]:
        """The `ratings` messages the row `seq` (written at `ts`) caused: `item` its input (None for another
        row), `events` what the fold made of it, `round_` the round the table holds after it."""
        out: list[dict[str, Any]] = []
        if isinstance(item, PlayerSeated | BehindJoined):
            seat = (item.box, isinstance(item, BehindJoined))
            current = self.open.get(seat)
            if current is None or current.player != item.player:
                self._close(seat, seq, ts, out)
                self._start(seat, item.player, f"{self.table_id}-{seq}", seq, ts, out)
        elif isinstance(item, SeatCleared | BehindLeft):
            self._close((item.box, isinstance(item, BehindLeft)), seq, ts, out)
        elif isinstance(item, PlayerPaused | PlayerResumed):
            session = self.open.get((item.box, False))
            if session is not None:
                if isinstance(item, PlayerPaused):
                    session.pause(ts)
                elif session.since is None:
                    session.since = ts
                out.append(self._message(UPDATED, session, seq, ts))
        elif isinstance(item, PlayerMoved):
            self._move(item, seq, ts, out)
        elif isinstance(item, BuyIn):
            self._buy_in(item)
        for event in events:
            if self.advice is not None:
                self.advice.event(event)
            if isinstance(event, RoundStarted) and round_ is not None:
                self._round_started(round_, seq, ts, out)
            elif isinstance(event, RoundClosed) and round_ is not None:
                self._round_closed(round_, seq, ts, out)
            elif isinstance(event, RoundVoided):
                self._round = {}  # the stakes went back: nothing of it is rated
        return out

    def _start(self, seat: Seat, player: str | None, session_id: str, seq: int, ts: float,
               out: list[dict[str, Any]]) -> None:
        session = RatedSession(session=session_id, player=player, box=seat[0], behind=seat[1], started_at=ts,
                               since=ts)
        self.open[seat] = session
        out.append(self._message(STARTED, session, seq, ts))

    def _close(self, seat: Seat, seq: int, ts: float, out: list[dict[str, Any]]) -> None:
        session = self.open.pop(seat, None)
        if session is None:
            return
        session.pause(ts)
        session.ended_at = ts
        session.last_round = None
        if self.advice is not None and not session.behind:
            self.advice.session_closed(session.session, session.box, session.player)
        out.append(self._message(CLOSED, session, seq, ts))

    def _move(self, item: PlayerMoved, seq: int, ts: float, out: list[dict[str, Any]]) -> None:
        session = self.open.get((item.from_box, False))
        if session is None:
            return
        self._close((item.to_box, False), seq, ts, out)  # an anonymous player on the box he takes
        del self.open[item.from_box, False]
        session.box = item.to_box
        self.open[item.to_box, False] = session
        session.last_round = None
        out.append(self._message(UPDATED, session, seq, ts))

    def _buy_in(self, item: BuyIn) -> None:
        named = [session for session in self.open.values() if item.player and session.player == item.player]
        if named:
            named[0].buy_in += item.cents
        elif item.box is not None and (item.box, False) in self.open:
            self.open[item.box, False].buy_in += item.cents

    def _round_started(self, round_: Round, seq: int, ts: float, out: list[dict[str, Any]]) -> None:
        staked: set[Seat] = set()
        for box in round_.boxes:
            if box.bet.seated_cents > 0:
                staked.add((box.number, False))
            if any(bet.cents > 0 for bet in box.bet.behind):
                staked.add((box.number, True))
        for seat, session in list(self.open.items()):  # an anonymous box left empty: he left
            if session.player is None and seat not in staked:
                self._close(seat, seq, ts, out)
        self._round = {}
        for seat in sorted(staked):
            if seat not in self.open:
                suffix = f"-{seat[0]}" + ("b" if seat[1] else "")
                self._start(seat, None, f"{self.table_id}-{seq}{suffix}", seq, ts, out)
            self._round[seat] = self.open[seat]

    def _round_closed(self, round_: Round, seq: int, ts: float, out: list[dict[str, Any]]) -> None:
        boxes = {box.number: box for box in round_.boxes}
        for (number, behind), session in self._round.items():
            box = boxes.get(number)
            if box is None:
                continue
            stake, win, hands, cost = self._figures(round_, box, behind)
            session.rounds += 1
            session.hands += hands
            session.handle += stake
            session.win += win
            session.cost += cost
            theo, theo_skill = theo_cents(stake, self.edge, cost)
            session.last_round = {"round_id": f"{self.table_id}-{round_.number}", "stake_cents": stake,
                                  "win_cents": win, "theo_cents": theo, "theo_skill_cents": theo_skill}
            if session is self.open.get((session.box, session.behind)):
                out.append(self._message(UPDATED, session, seq, ts))
            session.last_round = None
        if self.advice is not None:  # every seated session open, his stake's owner or None when he watched
            played = {id(session): boxes[number].bet.owner for (number, behind), session in self._round.items()
                      if not behind and number in boxes}
            self.advice.round_settled(round_, [(session.session, session.box, session.player, played.get(id(session)))
                                               for seat, session in sorted(self.open.items()) if not seat[1]])
        self._round = {}

    def _figures(self, round_: Round, box: BoxState, behind: bool) -> tuple[int, int, int, float]:
        """(handle, win, hands, cost in cents) of the seated player of `box`, or of the players behind it."""
        seated = {box.bet.owner, box.bet.owner or f"box{box.number}"}  # a hyper stake names the box when unowned
        owners = {bet.owner for bet in box.bet.behind} if behind else seated
        payouts = [payout for payout in round_.payouts if payout.box == box.number and payout.owner in owners]
        stake = sum(payout.staked_cents for payout in payouts if payout.kind != "insurance")
        win = sum(payout.net_cents for payout in payouts)
        hands = sum(1 for hand in box.hands if any(s.owner in owners and s.cents > 0 for s in hand.stakes))
        cost = 0.0
        if not behind:  # his own decisions; a player behind undergoes them (art. 55-4, « les joueurs debout »)
            if len(box.hands) > 1 and box.hands[0].cards:
                cost += box.bet.seated_cents * split_cost(self.terms, round_, box.hands[0].cards[0].value,
                                                          can_double=self.terms.double_after_split)
            for hand in box.hands:
                original = sum(s.cents for s in hand.stakes if s.owner in owners and s.kind in ("original", "split"))
                cost += original * hand_cost(self.terms, round_, hand)
        return stake, win, hands, cost

    # -- the messages -------------------------------------------------------------------------
    def _message(self, kind: str, session: RatedSession, seq: int, ts: float) -> dict[str, Any]:
        skill = session.handle * self.edge + session.cost
        theo, theo_skill = theo_cents(session.handle, self.edge, session.cost)
        return {
            "type": kind, "table": self.table_id, "session": session.session, "player": session.player,
            "box": session.box, "started_at": iso(session.started_at),
            "ended_at": None if session.ended_at is None else iso(session.ended_at),
            "seconds_played": session.seconds(ts), "rounds": session.rounds, "hands": session.hands,
            "handle_cents": session.handle,
            "average_bet_cents": session.handle // session.hands if session.hands else 0,
            "buy_in_cents": session.buy_in, "win_cents": session.win,
            "theo_cents": theo, "theo_skill_cents": theo_skill,
            "edge_pct": round(self.edge * 100, 3),
            "skill_edge_pct": round((skill / session.handle if session.handle else self.edge) * 100, 3),
            "seq": seq, "round": session.last_round,
        }
