"""Chips changed at the table (CHANGE, core/seance.py `ChipsChanged`): an exchange of the séance for the identity
check as a buy-in is (CMF L.561-13, décret n° 2009-1013: chips bought, brought or exchanged past 2,000 € in a
séance), whether the chips are changed for banknotes or coloured up; chips changed for cash come into the tray and
the banknotes leave the drop box, so win = closer − opener + credits − fills + drop still holds to the cent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_runtime.core.record import replay, starting_core
from table_runtime.core.terms import TableTerms
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.refusals import RefusalReason
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.table_runtime.core.test_seance import (
    LIMITS,
    OPENER,
    OPENER_CENTS,
    PLAYER,
    RULES,
    controller_on,
    counted,
    ok,
    play_round,
    press,
    shuffle,
)


def identity_alarms(controller: TableController) -> list[dict[str, Any]]:
    return [alarm for alarm in controller.alarms.active if alarm["kind"] == AlarmKind.AML_IDENTITY_REQUIRED]


def test_the_change_for_cash_past_2000_euros_asks_for_the_identity(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 150_000, "box": 3})
        ok(controller, "CHANGE", {"cents": 50_000, "box": 3, "to": "cash"})  # 2,000.00 €: not more than
        assert identity_alarms(controller) == []
        ok(controller, "CHANGE", {"cents": 10_000, "box": 3, "to": "cash"})  # 2,100.00 €: past it
        (alarm,) = identity_alarms(controller)
        assert alarm["box"] == 3
        assert alarm["amounts"] == {"change_cents": 10_000, "seance_total_cents": 210_000, "threshold_cents": 200_000}
        assert "L.561-13" in alarm["rule"] and "change of 100.00 €" in alarm["message"]
        ok(controller, "CHANGE", {"cents": 10_000, "box": 3, "to": "cash"})  # once per player and séance
        assert len(identity_alarms(controller)) == 1
        account = controller.core.seances.current
        assert account is not None and account.exchanged == {"box3": 220_000}
        # The banknotes left the drop box; the chips came into the tray.
        assert (account.drop_cash_cents, account.change_cash_cents) == (150_000 - 70_000, 70_000)
        assert controller.core.tray.flows.sold_cents == 150_000 - 70_000


def test_colouring_up_counts_for_the_identity_and_moves_no_money(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 120_000, "box": 1, "player": PLAYER})
        ok(controller, "CHANGE", {"cents": 90_000, "box": 5, "player": PLAYER, "to": "chips"})  # the same player
        (alarm,) = identity_alarms(controller)
        assert alarm["box"] == 5 and PLAYER in alarm["message"]
        assert alarm["amounts"]["change_cents"] == 90_000 and alarm["amounts"]["seance_total_cents"] == 210_000
        account = controller.core.seances.current
        assert account is not None
        assert (account.drop_cash_cents, account.change_chips_cents, account.change_cash_cents) == (120_000, 90_000, 0)
        assert controller.core.tray.flows.sold_cents == 120_000
        ok(controller, "IDENTITY_RECORDED", {"player": PLAYER, "reference": "ID-2026-0077"}, role="supervisor")
        ok(controller, "CHANGE", {"cents": 90_000, "box": 5, "player": PLAYER, "to": "chips"})
        assert len(identity_alarms(controller)) == 1  # identified: no second alarm


def test_a_change_is_refused_with_one_line(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        assert press(controller, "CHANGE", {"cents": 500, "box": 1})["reason"] == RefusalReason.NO_SEANCE
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 10_000, "box": 2})
        refusals: list[tuple[dict[str, Any], str]] = [
            ({"cents": 0, "box": 1}, "above 0"), ({"cents": "5", "box": 1}, "whole number"),
            ({"cents": 500, "box": 9}, "not a box"), ({"cents": 500, "box": 1, "to": "gold"}, "gold"),
            ({"cents": 500}, "whose chips"), ({"cents": 500, "player": "4000123412341234"}, "pseudonym"),
            ({"cents": 20_000, "box": 2, "to": "cash"}, "drop box holds 100.00 €")]
        for args, words in refusals:
            reply = press(controller, "CHANGE", args)
            assert not reply["ok"] and reply["reason"] == RefusalReason.BAD_AMOUNT and words in reply["message"], \
                (args, reply)
            assert "4000123412341234" not in reply["message"]
        account = controller.core.seances.current
        assert account is not None and account.exchanged == {"box2": 10_000}


def test_a_seance_with_change_for_cash_balances_to_the_cent_and_replays(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        shuffle(controller)
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 30_000, "box": 1})
        play_round(controller)  # the players win 10.00
        ok(controller, "CHANGE", {"cents": 5_000, "box": 1, "to": "cash"})  # 50.00 € of chips into the tray
        account = controller.core.seances.current
        assert account is not None
        tray = OPENER_CENTS - 30_000 - 1000 + 5_000
        assert account.expected_tray_cents == tray
        ok(controller, "SEANCE_CLOSE", {"chips": counted(tray)})
        (seance,) = controller.core.seances.closed
        figures = seance.figures()
        assert figures["drop_cents"] == figures["drop_cash_cents"] == 25_000
        assert figures["change_cash_cents"] == 5_000
        assert figures["win_cents"] == tray - OPENER_CENTS + 25_000 == -figures["players_net_cents"] == -1000
        actions = [entry.body["action"] for entry in journal.entries(kinds=("event",))
                   if entry.body["type"] == "SeanceUpdated"]
        assert actions == ["opened", "buy_in", "change_cash", "closed"]
        again = replay(starting_core(TableTerms.of("T", RULES, LIMITS)), journal.entries())
        assert [account.view() for account in again.seances.all] == [seance.view()]
