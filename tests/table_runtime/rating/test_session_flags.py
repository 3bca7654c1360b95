"""The detection's flags of a rated session as advice to the supervisor: a player whose stake climbs with the
count is flagged (with thresholds lowered to a six-round session) and a flat bettor on the same cards is not; the
alarm names the box, the figures and the rule; live, the runtime's watch journals it as a supervisor's alarm and
the game goes on."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.refusals import RefusalReason
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.runtime.rating_watch import RatingWatch

from .rated_table import FLAT, LOWERED, RAMP, ROUNDS, RatedTable, play_ramp, play_round


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RatedTable]:
    rated = RatedTable(tmp_path)
    yield rated
    rated.close()


def _advice(table: RatedTable, settings: AdviceSettings) -> SessionFold:
    fold = SessionFold("T01", table.rules, advice=settings)
    fold.take_all(table.journal.entries())
    return fold


@pytest.mark.slow
def test_a_stake_that_climbs_with_the_count_is_advised_with_its_figures(table: RatedTable) -> None:
    table.press("SEAT", box=1, player="A")
    play_ramp(table, RAMP)
    fold = _advice(table, LOWERED)
    advice = fold.sessions.advice
    assert advice is not None
    (alarm,) = advice.raised
    session = fold.sessions.open[1, False].session
    figures = dict(advice.scores[session].bet_count())
    amounts = dict(alarm.amounts)
    assert alarm.kind == AlarmKind.ADVANTAGE_PLAY and alarm.box == 1
    assert f"player A (session {session}): bet_count" in alarm.message and "advice to the supervisor" in alarm.rule
    assert amounts["rho_stake_true_count_x1000"] == round(float(figures["rho_stake_true_count"]) * 1000) > 800
    assert amounts["z_change_x1000"] == round(float(figures["z_change"]) * 1000) >= 1000
    assert amounts["p_ppm"] == round(0.5 * math.erfc(float(figures["z_change"]) / math.sqrt(2)) * 1_000_000)
    assert (amounts["min_stake_cents"], amounts["max_stake_cents"], amounts["rounds"]) == (1000, 8200, 6)
    assert "mean_stake_edge_below_0_cents" in amounts and "mean_stake_edge_above_1pct_cents" in amounts
    # The thresholds the bench chose (z 3.3 over at least 40 count changes) do not flag six rounds.
    default = _advice(table, AdviceSettings(every=6)).sessions.advice
    assert default is not None and default.raised == []


def test_a_flat_bettor_on_the_same_cards_is_not_advised(table: RatedTable) -> None:
    table.press("SEAT", box=1, player="A")
    play_ramp(table, FLAT)
    table.press("SEAT_CLEAR", box=1)  # the last look, at the session's end
    advice = _advice(table, LOWERED).sessions.advice
    assert advice is not None and advice.raised == []


async def test_live_the_advice_is_a_supervisor_alarm_and_the_game_goes_on(table: RatedTable) -> None:
    controller = table.controller
    table.press("SEAT", box=1, player="A")
    for stake, (cards, bank) in zip(RAMP[:3], ROUNDS[:3], strict=True):  # before the watch: folded, not advised
        play_round(table, stake, cards, bank)
    watcher = RatingWatch(controller, settings=LOWERED, poll_s=0.01, nice=0)  # not starved on a busy test machine
    watch = asyncio.create_task(watcher.run())
    try:
        async with asyncio.timeout(30):
            await watcher.caught_up.wait()
        def play_on() -> None:  # one step of the table: the watch steps every 10 ms, a change beside it is refused
            for stake, (cards, bank) in zip(RAMP[3:], ROUNDS[3:], strict=True):
                play_round(table, stake, cards, bank)

        await controller.step(play_on)
        async with asyncio.timeout(30):
            while not [a for a in controller.snapshot()["alarms"] if a["kind"] == AlarmKind.ADVANTAGE_PLAY]:
                await asyncio.sleep(0.02)
    finally:
        watch.cancel()
        await asyncio.gather(watch, return_exceptions=True)
        await controller.writer.settled()  # a step the watch began is over before the test changes the table
    (alarm,) = [a for a in controller.snapshot()["alarms"] if a["kind"] == AlarmKind.ADVANTAGE_PLAY]
    assert alarm["box"] == 1 and alarm["supervisor"] is True and alarm["amounts"]["max_stake_cents"] == 8200
    assert not controller.halted  # advice: the game goes on
    reply = controller.press("ACK_ALARM", {"id": alarm["id"]}, role="dealer", source="display")
    assert reply["reason"] == RefusalReason.NEEDS_SUPERVISOR
    table.lock({1: 1000})
    assert controller.table.round_in_play
    (seated,) = watcher.sessions  # the supervisor's view: the rated player of box 1
    assert (seated["player"], seated["box"], seated["rounds"], seated["handle_cents"]) == ("A", 1, 6, sum(RAMP))
    assert seated["theo_skill_cents"] >= seated["theo_cents"] > 0
