"""Rated sessions read from a real journal through the one fold, checked against figures worked out by hand:
a flat session, a split and a double, a pause, a move, an anonymous box, a player behind, and a decision error
that raises theo_skill by what it cost."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from table_runtime.game.inputs import Double, Next, Split
from table_runtime.rating.decision_cost import house_edge
from table_runtime.rating.sessions import half_up, iso
from table_runtime.strategy.composition import full_shoe, without
from table_runtime.strategy.situation import Situation, key
from table_runtime.strategy.terms import PlayTerms

from .rated_table import RatedTable


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RatedTable]:
    rated = RatedTable(tmp_path)
    yield rated
    rated.close()


def _edge(table: RatedTable) -> float:
    return house_edge(PlayTerms.from_options(table.rules))


def _last(messages: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return [message for message in messages if message["type"] == kind][-1]


def test_a_flat_session_from_seat_to_clear(table: RatedTable) -> None:
    table.at = 10
    table.press("SEAT", box=1, player="A")
    table.at = 20
    table.lock({1: 1000})
    table.draw("TH 6S 9D")  # box1 T 9 = 19 against the bank's 6
    table.submit(Next())
    table.draw("TC 8C")  # bank 6 T 8: bust, box1 paid 10.00
    table.confirm()
    table.at = 60
    table.lock({1: 2000})
    table.draw("TD 7S 7D")  # 17 against 7
    table.submit(Next())
    table.draw("KS")  # bank 17: a push
    table.confirm()
    table.at = 100
    table.press("SEAT_CLEAR", box=1)
    messages = table.messages()
    assert [(m["type"], m["seq"] > 0) for m in messages] == [("session_started", True), ("session_updated", True),
                                                             ("session_updated", True), ("session_closed", True)]
    started, first, second, closed = messages
    assert started["session"] == f"T01-{started['seq']}" and started["player"] == "A" and started["box"] == 1
    assert started["started_at"] == "2027-01-15T08:00:10.000Z" and started["ended_at"] is None
    assert first["round"] == {"round_id": "T01-1", "stake_cents": 1000, "win_cents": 1000,
                              "theo_cents": half_up(1000 * _edge(table)),
                              "theo_skill_cents": half_up(1000 * _edge(table))}
    assert second["round"]["win_cents"] == 0 and second["seconds_played"] == 50
    assert closed["ended_at"] == "2027-01-15T08:01:40.000Z" and closed["round"] is None
    assert (closed["seconds_played"], closed["rounds"], closed["hands"], closed["handle_cents"],
            closed["average_bet_cents"], closed["win_cents"]) == (90, 2, 2, 3000, 1500, 1000)
    theo = half_up(3000 * _edge(table))
    assert 10 <= theo <= 25  # fr-casino keeps about half a per cent of the handle
    assert (closed["theo_cents"], closed["theo_skill_cents"]) == (theo, theo)
    assert closed["edge_pct"] == closed["skill_edge_pct"] == round(_edge(table) * 100, 3)
    assert closed["session"] == started["session"] and closed["buy_in_cents"] == 0


def test_a_split_and_a_double_count_every_stake_and_hand(table: RatedTable) -> None:
    table.press("SEAT", box=1, player="A")
    table.press("BUY_IN", cents=50_000, box=1)
    table.lock({1: 1000})
    table.draw("8H 6S 8D")  # 8 8 against 6
    table.submit(Split())
    table.draw("3C")  # hand 1: 8 3
    table.submit(Double())
    table.draw("TC")  # 21, doubled
    table.draw("TD")  # hand 2: 8 T
    table.submit(Next())
    table.draw("TH TS")  # bank 6 T T: bust
    table.confirm()
    updated = _last(table.messages(), "session_updated")
    assert (updated["hands"], updated["handle_cents"], updated["average_bet_cents"], updated["win_cents"],
            updated["buy_in_cents"]) == (2, 3000, 1500, 3000, 50_000)
    # Splitting 8s, doubling 11 and standing on 18 against a 6 are the best plays: nothing given away.
    assert updated["theo_cents"] == updated["theo_skill_cents"] == half_up(3000 * _edge(table))


def test_a_pause_stops_the_time_played(table: RatedTable) -> None:
    table.press("SEAT", box=2, player="A")
    table.at = 30
    table.press("PAUSE", box=2)
    table.at = 50
    table.press("RESUME", box=2)
    table.at = 100
    table.press("SEAT_CLEAR", box=2)
    messages = table.messages()
    assert [(m["type"], m["seconds_played"], m["round"]) for m in messages] == [
        ("session_started", 0, None), ("session_updated", 30, None), ("session_updated", 30, None),
        ("session_closed", 80, None)]


def test_a_move_keeps_the_session_and_its_rounds(table: RatedTable) -> None:
    table.press("SEAT", box=2, player="A")
    table.lock({2: 1000})
    table.draw("TH 6S 9D")
    table.at = 10
    table.press("MOVE", from_box=2, to_box=5)  # in the round: its stakes are still his
    table.submit(Next())
    table.draw("TC 8C")  # bank bust
    table.confirm()
    table.lock({5: 500})
    table.draw("TH 7S 9D")
    table.submit(Next())
    table.draw("TC")  # bank 17, box5 19 wins 5.00
    table.confirm()
    table.press("SEAT_CLEAR", box=5)
    messages = table.messages()
    assert {m["session"] for m in messages} == {messages[0]["session"]}  # one session throughout
    assert [(m["type"], m["box"]) for m in messages] == [
        ("session_started", 2), ("session_updated", 5), ("session_updated", 5), ("session_updated", 5),
        ("session_closed", 5)]
    assert (messages[-1]["rounds"], messages[-1]["handle_cents"], messages[-1]["win_cents"]) == (2, 1500, 1500)


def test_an_anonymous_box_is_a_session_until_the_box_empties(table: RatedTable) -> None:
    table.lock({3: 1000})
    table.draw("TH 6S 9D")
    table.submit(Next())
    table.draw("TC 8C")
    table.confirm()
    table.at = 40
    table.lock({4: 1000})  # box 3 has no stake: its anonymous player left; box 4 is another one
    messages = table.messages()
    assert [(m["type"], m["player"], m["box"]) for m in messages] == [
        ("session_started", None, 3), ("session_updated", None, 3), ("session_closed", None, 3),
        ("session_started", None, 4)]
    started, _, closed, other = messages
    assert started["session"] == f"T01-{started['seq']}-3" and closed["session"] == started["session"]
    assert closed["ended_at"] == "2027-01-15T08:00:40.000Z" and closed["win_cents"] == 1000
    assert other["session"] != started["session"]


def test_a_decision_error_raises_theo_skill_by_what_it_cost(table: RatedTable) -> None:
    table.press("SEAT", box=1, player="A")
    table.press("BEHIND", box=1, player="B")
    table.lock({1: 1000}, behind={1: 400})
    table.draw("TH 6S TD")  # 20 against 6
    table.draw("2C")  # he hits 20: 22, bust (the player behind undergoes it)
    table.confirm()
    messages = table.messages()
    seated = _last([m for m in messages if m["player"] == "A"], "session_updated")
    behind = _last([m for m in messages if m["player"] == "B"], "session_updated")
    edge = _edge(table)
    # The cost by hand: standing on 20 against a 6 against hitting it (then playing on at best), on the shoe
    # less the 6 and the two tens; worked out here from the solver's situation, not through the rating code.
    terms = PlayTerms.from_options(table.rules)
    situation = Situation(terms, without(full_shoe(6), 6, 10, 10), 6)
    stand, hit = situation.optimal_hit_stand()
    cost = stand[key(20, False)] - hit[key(20, False)]
    assert 1.3 < cost < 1.8  # a made 20 against a 6 wins about 0.7; hitting it loses about 0.85
    assert seated["win_cents"] == -1000 and seated["theo_cents"] == half_up(1000 * edge)
    assert seated["theo_skill_cents"] == half_up(1000 * edge + 1000 * cost)
    assert seated["round"]["theo_skill_cents"] == seated["theo_skill_cents"]
    assert seated["skill_edge_pct"] == round((edge + cost) * 100, 3)
    assert (behind["handle_cents"], behind["win_cents"], behind["box"]) == (400, -400, 1)
    assert behind["theo_skill_cents"] == behind["theo_cents"] == half_up(400 * edge)  # not his decision


def test_a_replay_of_the_journal_gives_the_same_messages(table: RatedTable) -> None:
    table.press("SEAT", box=1, player="A")
    table.lock({1: 1000, 2: 500})
    table.draw("TH 5C 6S 9D 9C")
    table.submit(Next())
    table.submit(Next())
    table.draw("TC 8C")
    table.confirm()
    assert table.messages() == table.messages() and len(table.messages()) == 4


@pytest.mark.parametrize("ts", [0.0, 951_782_400.5, 1_764_585_600.1, 1_800_000_000.999, 4_107_542_399.0,
                                1_709_164_800.25, 1_078_012_799.9996])
def test_a_time_is_written_as_iso_8601_utc_to_the_millisecond(ts: float) -> None:
    moment = datetime.fromtimestamp(round(ts, 3), UTC)
    assert iso(ts) == moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
