"""The séance (core/seance.py): journaled inputs folded into the one table state, sealed in the checkpoints, its
figures (win = closer − opener + credits − fills + drop, tips never in it), the two roles of a slip, the option
that keeps the table from dealing outside a séance, and the identity alarm past 2,000 € in a séance."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment

from table_runtime.core.core_state import checkpoint_state
from table_runtime.core.record import replay, starting_core
from table_runtime.core.terms import TableTerms
from table_runtime.display.schema import RECALLED_ROUND_SCHEMA
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Confirm, Next, ShoeShuffled
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds

RULES = profile("fr-casino")
LIMITS = TableLimits()
PLAYER = "p-4471ab09cd3e"
OPENER = {"50000": 20, "10000": 40, "2500": 40, "500": 100}  # 15,500.00 €
OPENER_CENTS = 20 * 50000 + 40 * 10000 + 40 * 2500 + 100 * 500


def controller_on(journal: Journal, *, required: bool = False, checkpoint_rows: int = 10**12) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal,
                           clock=lambda: 1_800_000_000.0 + next(ticks), seance_required=required,
                           checkpoint_rows=checkpoint_rows)


def counted(cents: int) -> dict[str, int]:
    """`cents` as the dealer counts a tray: the fewest chips of 500, 100, 25, 5 and 1 €, then 50 cents."""
    chips: dict[str, int] = {}
    for denomination in (50000, 10000, 2500, 500, 100, 50):
        chips[str(denomination)], cents = divmod(cents, denomination)
    assert cents == 0
    return chips


def press(controller: TableController, name: str, args: dict[str, Any], role: str = "dealer") -> dict[str, Any]:
    return controller.press(name, args, role=role, source="display")


def ok(controller: TableController, name: str, args: dict[str, Any], role: str = "dealer") -> None:
    reply = press(controller, name, args, role)
    assert reply["ok"], reply


def shuffle(controller: TableController) -> None:
    controller.submit(ShoeShuffled(shoe_id="S1"), source="shoe")
    for code in ("9C", "9D", "9H", "9S", "8C"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")


def play_round(controller: TableController) -> None:
    """Box 1 stakes 10.00, T 6 against the bank's T, stands; the bank draws 2 then T: 22, box 1 wins 10.00."""
    controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),)), source="chips")
    for code in ("TD", "TC", "6D"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    controller.submit(Next(), source="panel")
    for code in ("2S", "TH"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    controller.submit(Confirm(), source="panel")


def test_a_seance_from_its_opener_to_its_closer(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        shuffle(controller)
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 30000, "box": 1})  # 300.00 € cash: chips out of the tray, cash in the box
        ok(controller, "BUY_IN", {"cents": 20000, "tender": "marker", "box": 2})
        ok(controller, "FILL", {"chips": OPENER})  # slip 1: the initial advance again (art. 49)
        ok(controller, "SLIP_CONFIRM", {"number": 1}, role="supervisor")
        ok(controller, "CREDIT", {"chips": {"50000": 10}})  # slip 2
        assert controller.core.tray.flows.credits_cents == 0  # asked, not yet confirmed: the chips have not moved
        ok(controller, "SLIP_CONFIRM", {"number": 2}, role="supervisor")
        # The confirmed slips move chips into and out of the tray the reconciliation expects (tray_reconciliation.py)
        flows = controller.core.tray.flows
        assert (flows.fills_cents, flows.credits_cents, flows.sold_cents) == (OPENER_CENTS, 500_000, 50000)
        play_round(controller)  # the players win 10.00
        ok(controller, "TIP", {"box": 1, "cents": 500})
        ok(controller, "ORPHAN_CHIPS", {"cents": 2500, "where": "floor by box 4"})
        # The tray: opener + fill − credit − chips sold (500.00) − the players' 10.00 won.
        tray = OPENER_CENTS + OPENER_CENTS - 500_000 - 50_000 - 1000
        assert controller.core.seances.current is not None
        assert controller.core.seances.current.expected_tray_cents == tray
        ok(controller, "SEANCE_CLOSE", {"chips": counted(tray)})
        (seance,) = controller.core.seances.closed
        figures = seance.figures()
        assert figures["opener_cents"] == OPENER_CENTS and figures["fills_cents"] == OPENER_CENTS
        assert figures["credits_cents"] == 500_000
        assert (figures["drop_cash_cents"], figures["drop_marker_cents"], figures["drop_cents"]) == (30000, 20000,
                                                                                                     50000)
        assert figures["tips_cents"] == 500 and figures["orphans_cents"] == 2500
        assert figures["closer_cents"] == tray
        assert figures["win_cents"] == tray - OPENER_CENTS + 500_000 - OPENER_CENTS + 50000 == -1000
        assert figures["win_cents"] == -figures["players_net_cents"]  # the tips are never in it
        # Every séance step is an input row and an event the feed publishes.
        actions = [entry.body["action"] for entry in journal.entries(kinds=("event",))
                   if entry.body["type"] == "SeanceUpdated"]
        assert actions == ["opened", "buy_in", "buy_in", "fill_requested", "fill_confirmed", "credit_requested",
                           "credit_confirmed", "tip", "orphan_chips", "closed"]
        # The one fold of the journal makes the same séance.
        again = replay(starting_core(TableTerms.of("T", RULES, LIMITS)), journal.entries())
        assert [account.view() for account in again.seances.all] == [seance.view()]


def test_a_slip_counts_once_the_other_role_confirms_it(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        assert press(controller, "FILL", {"chips": OPENER})["reason"] == RefusalReason.NO_SEANCE
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        refused = press(controller, "FILL", {"chips": {"50000": 1}})
        assert refused["reason"] == RefusalReason.FILL_NOT_INITIAL_ADVANCE and "art. 49" in refused["message"]
        ok(controller, "FILL", {"chips": OPENER})
        account = controller.core.seances.current
        assert account is not None and account.fills_cents == 0  # asked, not confirmed: not in the figures
        assert press(controller, "SLIP_CONFIRM", {"number": 1})["reason"] == RefusalReason.NEEDS_SUPERVISOR
        assert press(controller, "SEANCE_CLOSE", {"chips": OPENER})["reason"] == RefusalReason.SLIPS_PENDING
        assert press(controller, "SLIP_CONFIRM", {"number": 7}, role="supervisor")["reason"] == \
            RefusalReason.NO_SUCH_SLIP
        ok(controller, "SLIP_CONFIRM", {"number": 1}, role="supervisor")
        assert account.fills_cents == OPENER_CENTS
        (slip,) = account.view()["slips"]
        assert slip["asked_by"] == {"role": "dealer"} and slip["confirmed_by"] == {"role": "supervisor"}
        assert press(controller, "SEANCE_OPEN", {"chips": OPENER})["reason"] == RefusalReason.SEANCE_OPEN
        assert press(controller, "SEANCE_CLOSE", {"chips": {"500": -1}})["reason"] == RefusalReason.BAD_COUNT
        assert press(controller, "TIP", {"box": 9, "cents": 500})["reason"] == RefusalReason.BAD_TIP


def test_a_seance_spans_a_restart_from_a_checkpoint(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal, checkpoint_rows=1)
        shuffle(controller)
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "FILL", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 10000, "box": 3})
        play_round(controller)
        play_round(controller)  # its bet lock seals a checkpoint holding the open séance
        live = controller.core.seances.current
        assert live is not None
        assert checkpoint_state(controller.core)["core"]["seances"]["current"]["slips"][0]["number"] == 1
        assert journal.checkpoint_before(journal.last_seq + 1) is not None
    with Journal.open(journal_path(tmp_path)) as journal:  # the power cut: the start folds from the checkpoint
        again = controller_on(journal, checkpoint_rows=1)
        assert again.journal.start_checkpoint is not None
        current = again.core.seances.current
        assert current is not None and current.view() == live.view()
        ok(again, "SLIP_CONFIRM", {"number": 1}, role="supervisor")  # the slip asked before the cut
        assert current.fills_cents == OPENER_CENTS


def test_the_table_deals_only_in_an_open_seance_when_its_terms_say_so(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal, required=True)
        assert journal.terms_entries()[-1].body["seance"] == {"required": True}
        shuffle(controller)
        # A bet lock by the chips (the panel, the first card) is refused with an alarm naming the reason.
        events = controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),)),
                                   source="chips")
        (alarm,) = [event for event in events if isinstance(event, Alarm) and event.kind == AlarmKind.COMMAND_REFUSED]
        assert alarm.reason == RefusalReason.NO_SEANCE and "no séance is open" in alarm.message
        assert controller.table.round is None
        assert controller.snapshot()["seance"] == {"required": True, "open": False}
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        play_round(controller)
        assert controller.table.round is not None and controller.table.round.phase == "closed"


def test_old_terms_and_configs_read_as_before(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller_on(journal)
        assert "seance" not in journal.terms_entries()[-1].body  # off: the terms row is the one written before
    assert TableTerms.from_json(TableTerms.of("T", RULES).to_json()).seance_required is False


def test_the_buy_in_past_2000_euros_in_a_seance_asks_for_the_identity(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 150_000, "box": 3})
        ok(controller, "BUY_IN", {"cents": 50_000, "box": 3})  # 2,000.00 €: not more than
        assert not [alarm for alarm in controller.alarms.active if alarm["kind"] == AlarmKind.AML_IDENTITY_REQUIRED]
        ok(controller, "BUY_IN", {"cents": 100, "box": 3})  # 2,001.00 €: past it
        (alarm,) = [alarm for alarm in controller.alarms.active if alarm["kind"] == AlarmKind.AML_IDENTITY_REQUIRED]
        assert alarm["box"] == 3
        assert alarm["amounts"] == {"buy_in_cents": 100, "seance_total_cents": 200_100, "threshold_cents": 200_000}
        assert "L.561-13" in alarm["rule"] and "2,001.00" in alarm["message"]
        ok(controller, "BUY_IN", {"cents": 50_000, "box": 3})  # once per player and séance
        assert len([a for a in controller.alarms.active if a["kind"] == AlarmKind.AML_IDENTITY_REQUIRED]) == 1
        # The dealer cannot clear it; the supervisor records the reference, never the identity.
        assert press(controller, "ACK_ALARM", {"id": alarm["id"]})["reason"] == RefusalReason.NEEDS_SUPERVISOR
        assert press(controller, "IDENTITY_RECORDED", {"box": 3, "reference": "ID-2026-0042"})["reason"] == \
            RefusalReason.NEEDS_SUPERVISOR
        assert press(controller, "IDENTITY_RECORDED", {"box": 3, "reference": "Jean Dupont"},
                     role="supervisor")["reason"] == RefusalReason.BAD_REFERENCE
        ok(controller, "IDENTITY_RECORDED", {"box": 3, "reference": "ID-2026-0042"}, role="supervisor")
        ok(controller, "ACK_ALARM", {"id": alarm["id"]}, role="supervisor")
        account = controller.core.seances.current
        assert account is not None and account.identified == {"box3": "ID-2026-0042"}
        # A rated player is followed by his pseudonym, whatever box he buys in at.
        ok(controller, "BUY_IN", {"cents": 150_000, "box": 1, "player": PLAYER})
        ok(controller, "BUY_IN", {"cents": 60_000, "box": 5, "player": PLAYER})
        (rated,) = [alarm for alarm in controller.alarms.active if alarm["kind"] == AlarmKind.AML_IDENTITY_REQUIRED]
        assert rated["box"] == 5 and PLAYER in rated["message"] and rated["amounts"]["seance_total_cents"] == 210_000
        # A new séance counts from nothing.
        ok(controller, "ACK_ALARM", {"id": rated["id"]}, role="supervisor")
        ok(controller, "SEANCE_CLOSE", {"chips": OPENER})
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        ok(controller, "BUY_IN", {"cents": 150_000, "box": 3})
        assert not [a for a in controller.alarms.active if a["kind"] == AlarmKind.AML_IDENTITY_REQUIRED]


def test_recall_shows_the_seance_steps_between_rounds(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        shuffle(controller)
        ok(controller, "SEANCE_OPEN", {"chips": OPENER})
        play_round(controller)
        ok(controller, "FILL", {"chips": OPENER})
        ok(controller, "SLIP_CONFIRM", {"number": 1}, role="supervisor")
        ok(controller, "TIP", {"box": 1, "cents": 500})
        play_round(controller)
        rounds = recall_rounds(journal, last=2)
    for round_ in rounds:
        jsonschema.validate(round_, RECALLED_ROUND_SCHEMA)
    first = [step["text"] for step in rounds[0]["steps"]]
    assert first[0] == "séance opened: opener 15,500.00 € (manual)"
    assert first[-3:] == ["fill slip 1 asked: 15,500.00 €", "slip 1 confirmed by the supervisor",
                          "tip 5.00 € from box 1 into the tronc"]
