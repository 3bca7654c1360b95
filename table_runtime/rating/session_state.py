"""The rated sessions as a checkpoint's state: plain JSON, read back into the same `RatedSessions`.

`sessions_state(sessions)` is everything `RatedSessions.observe` (sessions.py) carries from one row to the next: the
open sessions with their totals, the sessions holding the stakes of a round in play, and, when it advises, the shoe
as the players see it (`ShoeState`), the figures of the shoe before the round and each seated session's scores and
flags already advised (session_flags.py). `restore_sessions(sessions, state)` puts it back into a `RatedSessions`
built for the same table and terms, so that the rows after the checkpoint fold to the same messages and advice as a
fold from the first row (tests/table_runtime/rating/test_session_state.py). The models computed from the play terms
(the house edge, the advice's edge model) are apart: `models_state`, `restore_models`. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from table_runtime.rating.detection import SessionScores
from table_runtime.rating.round_edge import LinearEdge
from table_runtime.rating.sessions import RatedSession, RatedSessions, RatingModels, Seat
from table_runtime.strategy.chart import Strategy
from table_runtime.strategy.terms import PlayTerms

STATE_VERSION = 1


def _session(session: RatedSession) -> dict[str, Any]:
    return {field.name: getattr(session, field.name) for field in fields(session)}


def _restored_session(state: dict[str, Any]) -> RatedSession:
    names = {field.name for field in fields(RatedSession)}
    if set(state) != names:
        raise ValueError(f"a rated session's state has the fields {sorted(names)}, not {sorted(state)}")
    return RatedSession(**state)


def sessions_state(sessions: RatedSessions) -> dict[str, Any]:
    """The rated sessions' state after the last row they observed (see the module)."""
    state: dict[str, Any] = {
        "version": STATE_VERSION,
        "open": [_session(session) for _, session in sorted(sessions.open.items())],
        # A round's stakes belong to whoever held the box at the lock, even if he left since: named by seat.
        "round": [[seat[0], seat[1], _session(session)] for seat, session in sorted(sessions._round.items())],
        "advice": None,
    }
    advice = sessions.advice
    if advice is not None:
        shoe = advice.shoe
        state["advice"] = {
            "shoe": {"left": list(shoe.left), "running_count": shoe.running_count, "seen": shoe.seen,
                     "burned": shoe.burned},
            "shoe_id": advice.shoe_id, "before": list(advice.before),
            "scores": {session: scores.state() for session, scores in sorted(advice.scores.items())},
            "flagged": {session: sorted(flags) for session, flags in sorted(advice.flagged.items())},
            "raised": len(advice.raised),
        }
    return state


def restore_sessions(sessions: RatedSessions, state: dict[str, Any]) -> RatedSessions:
    """`sessions` (new, for the table and terms the state was taken under) holding `state`; a ValueError, KeyError or
    TypeError for a state this program did not write."""
    if state.get("version") != STATE_VERSION:
        raise ValueError(f"a rated sessions' state of version {state.get('version')!r}, not {STATE_VERSION}")
    opened = [_restored_session(dict(item)) for item in state["open"]]
    sessions.open = {(session.box, session.behind): session for session in opened}
    by_id = {session.session: session for session in opened}
    held: dict[Seat, RatedSession] = {}
    for box, behind, item in state["round"]:
        restored = _restored_session(dict(item))
        held[int(box), bool(behind)] = by_id.get(restored.session, restored)  # the same object when still open
    sessions._round = held
    advice_state = state["advice"]
    if (advice_state is None) != (sessions.advice is None):
        raise ValueError("a rated sessions' state with advice restored into sessions without (or the reverse)")
    advice = sessions.advice
    if advice is not None and advice_state is not None:
        if advice_state["raised"]:
            raise ValueError("a rated sessions' state taken with advice not yet handed over")
        shoe = advice.shoe
        left = [int(count) for count in advice_state["shoe"]["left"]]
        if len(left) != len(shoe.left):
            raise ValueError("the shoe of a rated sessions' state has another number of card values")
        shoe.left = left
        shoe.running_count = int(advice_state["shoe"]["running_count"])
        shoe.seen = int(advice_state["shoe"]["seen"])
        shoe.burned = int(advice_state["shoe"]["burned"])
        advice.shoe_id = str(advice_state["shoe_id"])
        true_count, edge, chance = (float(value) for value in advice_state["before"])
        advice.before = (true_count, edge, chance)
        detection = advice.settings.detection
        advice.scores = {str(session): SessionScores.restored(advice.strategy, detection, scores)
                         for session, scores in advice_state["scores"].items()}
        advice.flagged = {str(session): {str(flag) for flag in flags}
                          for session, flags in advice_state["flagged"].items()}
    return sessions


def models_state(sessions: RatedSessions) -> dict[str, Any]:
    """The models `sessions` computed from its play terms (with the basic strategy's chart they come from)."""
    edges = sessions.advice.edges if sessions.advice is not None else None
    return {"house_edge": sessions.edge, "strategy": Strategy.for_rules(sessions.terms).tables,
            "edges": None if edges is None else {"full": edges.full, "per_card": list(edges.per_card),
                                                 "shoe_cards": edges.shoe_cards}}


def restore_models(state: dict[str, Any], terms: PlayTerms) -> RatingModels | None:
    """The models of `models_state` for `terms`, None when it holds no edge model (it was taken without advice);
    its chart is the one `Strategy.for_rules(terms)` gives from now on (no second solving of the terms)."""
    edges = state["edges"]
    if edges is None:
        return None
    tables = {name: [bool(cell) for cell in state["strategy"][name]]
              for name in ("hits", "doubles", "splits", "surrenders", "pair_surrenders")}
    Strategy.remember(Strategy(terms, **tables))
    per_card = tuple(float(value) for value in edges["per_card"])
    if len(per_card) != 10:
        raise ValueError("an edge model has one effect per card value (10)")
    return RatingModels(house_edge=float(state["house_edge"]),
                        edges=LinearEdge(float(edges["full"]), per_card, int(edges["shoe_cards"])))
