"""Buy-ins (core/buy_ins.py): the dealer's cash-for-chips exchange, journaled as an input of the table at any
time, folded by the one fold (a replay makes the same events), refused in one line when the amount is bad or the
player is free text (a card number in clear), and shown in recall."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import pytest

from table_runtime.core.buy_ins import BuyIn, Tender
from table_runtime.core.core_state import checkpoint_state
from table_runtime.core.inputs import core_input_from_dict, core_to_dict
from table_runtime.core.player_cards import PlayerCardRead
from table_runtime.core.record import fold_row, replay
from table_runtime.core.table_core import TableCore
from table_runtime.display.schema import RECALLED_ROUND_SCHEMA
from table_runtime.errors import JournalError
from table_runtime.game.cards import Card
from table_runtime.game.codec import to_dict
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Confirm, Next, ShoeShuffled
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds

RULES = profile("fr-casino")
PLAYER = "p-4471ab09cd3e"  # a card's pseudonym (rating/pseudonym.py)
CARD_NUMBER = "6011987654321012"
LIMITS = TableLimits(buy_in_max_cents=200_000)  # 2 000.00 at once


def controller_on(journal: Journal, limits: TableLimits = LIMITS) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=limits, journal=journal,
                           clock=lambda: 1_800_000_000.0 + next(ticks))


def shuffle(controller: TableController) -> None:
    controller.submit(ShoeShuffled(shoe_id="S1"), source="shoe")
    for code in ("9C", "9D", "9H", "9S", "8C"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")


def play_round(controller: TableController, *, buy_in_midway: dict[str, Any] | None = None) -> None:
    """Box 1 stakes 10.00, draws T 6 against the bank's T, stands; the bank draws 2 then T: 22, box 1 wins."""
    controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),)), source="chips")
    for code in ("TD", "TC", "6D"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    if buy_in_midway is not None:
        reply = controller.press("BUY_IN", buy_in_midway, role="dealer", source="display")
        assert reply["ok"], reply
    controller.submit(Next(), source="panel")
    for code in ("2S", "TH"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    controller.submit(Confirm(), source="panel")


def rows_of(journal: Journal, type_: str) -> list[dict[str, Any]]:
    return [{"kind": entry.kind, **entry.body} for entry in journal.entries() if entry.body.get("type") == type_]


def test_a_buy_in_is_journaled_at_any_time_and_published_as_its_event(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        reply = controller.press("BUY_IN", {"cents": 50_000, "tender": "cash", "box": 1}, role="dealer",
                                 source="display")  # before the shoe: nothing of the game is needed
        assert reply == {"ok": True, "message": "buy-in 500.00 € cash (box 1) recorded", "alarmed": False}
        shuffle(controller)
        play_round(controller, buy_in_midway={"cents": 20_000, "tender": "marker", "player": PLAYER})
        assert controller.table.round is not None and controller.table.round.phase == "closed"
        assert [payout.net_cents for payout in controller.table.round.payouts] == [1000]  # the round as without
        inputs, events = rows_of(journal, "BuyIn"), rows_of(journal, "BuyInRecorded")
    assert [(row["kind"], row["cents"], row["tender"], row.get("box"), row.get("player")) for row in inputs] == [
        ("input", 50_000, "cash", 1, None), ("input", 20_000, "marker", None, PLAYER)]
    assert [(row["kind"], row["cents"], row["tender"], row["box"], row["player"], row["by"], row["round"])
            for row in events] == [("event", 50_000, "cash", 1, "", "dealer", 0),
                                   ("event", 20_000, "marker", None, PLAYER, "dealer", 1)]
    assert all(row["source"] == "display" for row in inputs)


def test_replay_equals_live_and_makes_the_journaled_events_again(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    with Journal.open(path) as journal:
        controller = controller_on(journal)
        shuffle(controller)
        controller.press("BUY_IN", {"cents": 10_000}, role="dealer", source="display")
        play_round(controller, buy_in_midway={"cents": 2_500, "tender": "cash", "box": 1})
        live = checkpoint_state(controller.core)
        core, rows = TableCore(RULES, LIMITS), list(journal.entries())
        folded = []
        for entry in rows:
            events = fold_row(core, entry.seq, entry.kind, entry.body)
            if entry.body.get("type") == "BuyIn":  # the event the fold makes is the row the table journaled
                (event,) = events
                folded.append({**to_dict(event), "round": rows[entry.seq].body["round"]})
        assert folded == [row.body for row in rows if row.body.get("type") == "BuyInRecorded"]
        assert [row["cents"] for row in folded] == [10_000, 2_500]
        assert checkpoint_state(core) == live
    with Journal.open(path) as journal:  # a restart folds the same table
        assert checkpoint_state(controller_on(journal).core) == live


def test_the_journal_body_round_trips_and_a_bad_row_is_an_error_naming_it() -> None:
    item = BuyIn(cents=123_456, tender=Tender.MARKER, box=7, player=PLAYER, by="supervisor")
    assert core_input_from_dict(core_to_dict(item)) == item
    assert core_input_from_dict({"type": "BuyIn", "cents": 100, "schema_version": 1}) == BuyIn(cents=100)
    with pytest.raises(JournalError, match=r"row 3 \(input\) does not replay: .*more than 0 cents"):
        replay(TableCore(RULES, LIMITS), [_Row(3, "input", {"type": "BuyIn", "cents": 0})])


class _Row:
    def __init__(self, seq: int, kind: str, body: dict[str, Any]) -> None:
        self.seq, self.kind, self.body = seq, kind, body


@pytest.mark.parametrize(("args", "reason", "words"), [
    ({"cents": 0}, RefusalReason.BAD_AMOUNT, "the amount must be more than 0 cents, not 0"),
    ({"cents": -500}, RefusalReason.BAD_AMOUNT, "the amount must be more than 0 cents, not -500"),
    ({"cents": "abc"}, RefusalReason.BAD_AMOUNT, "the amount must be a whole number of cents, not 'abc'"),
    ({"cents": 12.5}, RefusalReason.BAD_AMOUNT, "the amount must be a whole number of cents, not 12.5"),
    ({"cents": True}, RefusalReason.BAD_AMOUNT, "the amount must be a whole number of cents, not True"),
    ({}, RefusalReason.BAD_AMOUNT, "the amount must be a whole number of cents, not None"),
    ({"cents": 200_001}, RefusalReason.OVER_BUY_IN_MAXIMUM,
     "200001 cents is over the buy-in maximum of 200000 cents"),
    ({"cents": 500, "tender": "cheque"}, RefusalReason.BAD_BUY_IN, "paid with 'cheque': cash or marker only"),
    ({"cents": 500, "box": 8}, RefusalReason.BAD_BUY_IN, "box 8 is not a box of this table (1 to 7)"),
    ({"cents": 500, "player": CARD_NUMBER}, RefusalReason.PLAYER_NOT_PSEUDONYM,
     "a player is named by his card read (a pseudonym p- and 12 hex digits), never by a card number or other text"),
    ({"cents": 500, "player": "Ann"}, RefusalReason.PLAYER_NOT_PSEUDONYM,
     "a player is named by his card read (a pseudonym p- and 12 hex digits), never by a card number or other text"),
    ({"cents": 500, "player": "P-4471AB09CD3E"}, RefusalReason.PLAYER_NOT_PSEUDONYM,
     "a player is named by his card read (a pseudonym p- and 12 hex digits), never by a card number or other text"),
    ({"cents": 500, "player": 6011987654321012}, RefusalReason.PLAYER_NOT_PSEUDONYM,
     "a player is named by his card read (a pseudonym p- and 12 hex digits), never by a card number or other text"),
    ({"cents": 500, "card": True}, RefusalReason.NO_CARD_READ, "no player card waits: the player swipes his card"),
    ({"cents": 500, "card": "yes"}, RefusalReason.BAD_BUY_IN, "card is true (for the card read waiting) or false"),
    ({"cents": 500, "player": "x\x00"}, RefusalReason.INPUT_OUT_OF_BOUNDS, "args.player holds the character U+0000"),
    ({"cents": 2**63}, RefusalReason.INPUT_OUT_OF_BOUNDS,
     f"args.cents is past the floor's 64-bit numbers (at most {2**63 - 1})"),
])  # fmt: skip
def test_a_bad_buy_in_is_refused_in_one_line_and_journals_nothing(
        tmp_path: Path, args: dict[str, Any], reason: RefusalReason, words: str) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        before = journal.last_seq
        reply = controller.press("BUY_IN", args, role="dealer", source="display")
        assert reply == {"ok": False, "message": f"BUY_IN refused: {words}", "reason": reason}
        assert CARD_NUMBER not in reply["message"]  # a refusal never repeats the number
        assert journal.last_seq == before
        assert controller.press("BUY_IN", {"cents": 200_000}, role="dealer", source="display")["ok"]  # the max


def test_a_buy_in_for_the_card_read_waiting_names_its_pseudonym_and_leaves_the_card_waiting(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        controller.submit(PlayerCardRead(player=PLAYER, reader="table"), source="card")
        assert controller.press("BUY_IN", {"cents": 30_000, "card": True}, role="dealer", source="display")["ok"]
        refused = controller.press("BUY_IN", {"cents": 30_000, "card": True, "player": PLAYER}, role="dealer",
                                   source="display")
        assert (refused["ok"], refused["reason"]) == (False, RefusalReason.BAD_BUY_IN)
        assert controller.snapshot()["card_waiting"] == {"player": PLAYER, "reader": "table"}  # still for a box
        (recorded,) = rows_of(journal, "BuyInRecorded")
    assert (recorded["cents"], recorded["player"]) == (30_000, PLAYER)


def test_a_journal_of_before_the_pseudonyms_replays_its_free_text_player(tmp_path: Path) -> None:
    """The journal is the table's record: a buy-in journaled with free text still replays as it was."""
    old = {"type": "BuyIn", "cents": 500, "tender": "cash", "player": "P-4471", "by": "dealer", "schema_version": 1}
    assert core_input_from_dict(old) == BuyIn(cents=500, player="P-4471")
    (event,) = fold_row(TableCore(RULES, LIMITS), 1, "input", old)
    assert to_dict(event)["player"] == "P-4471"


def test_the_maximum_is_a_house_setting_a_journal_replays_under_any(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    with Journal.open(path) as journal:
        controller_on(journal, TableLimits()).press("BUY_IN", {"cents": 900_000}, role="dealer", source="x")
    with Journal.open(path) as journal:  # the house lowers the maximum: the journal's buy-in still replays
        controller = controller_on(journal, TableLimits(buy_in_max_cents=1000))
        assert [row["cents"] for row in rows_of(journal, "BuyInRecorded")] == [900_000]
        assert not controller.press("BUY_IN", {"cents": 1001}, role="dealer", source="display")["ok"]


def test_recall_shows_each_buy_in_as_a_step_of_its_round_or_after_it(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        controller.press("BUY_IN", {"cents": 10_000}, role="dealer", source="display")  # before any round
        shuffle(controller)
        play_round(controller, buy_in_midway={"cents": 2_500, "box": 1})
        controller.press("BUY_IN", {"cents": 7_000, "tender": "marker"}, role="dealer", source="display")
        play_round(controller)
        first, second = recall_rounds(journal, last=2)
    buy_ins = [[step["text"] for step in round_["steps"] if step["type"] == "BuyIn"] for round_ in (first, second)]
    assert buy_ins == [["buy-in 100.00 € cash", "buy-in 25.00 € cash (box 1)", "buy-in 70.00 € marker"], []]
    assert first["steps"][0]["type"] == "BuyIn" and first["steps"][1]["type"] == "BetsLocked"
    assert first["steps"][-1]["type"] == "BuyIn" and first["result"] == "settled"
    (event,) = first["steps"][-1]["events"]
    assert (event["type"], event["cents"], event["tender"]) == ("BuyInRecorded", 7_000, "marker")
    for round_ in (first, second):
        jsonschema.validate(round_, RECALLED_ROUND_SCHEMA)


def test_the_maximum_is_read_from_the_limits_and_a_bad_one_is_named(tmp_path: Path) -> None:
    from table_runtime.config import ConfigInvalidError, load_config

    configs = Path(__file__).resolve().parents[3] / "configs"
    assert "buy_in_max_cents = 1000000" in (configs / "pi.toml").read_text(encoding="utf-8")  # shown there
    demo = (configs / "demo.toml").read_text(encoding="utf-8")
    path = tmp_path / "table.toml"

    def with_maximum(value: str) -> None:
        path.write_text(demo.replace("[limits]\n", f"[limits]\nbuy_in_max_cents = {value}\n"), encoding="utf-8")

    with_maximum("250000")
    assert load_config(path, environ={}).limits.buy_in_max_cents == 250_000
    path.write_text(demo, encoding="utf-8")
    assert load_config(path, environ={}).limits.buy_in_max_cents == 1_000_000  # the default
    for bad in ("0", "-1", '"lots"'):
        with_maximum(bad)
        with pytest.raises(ConfigInvalidError) as caught:
            load_config(path, environ={})
        assert [problem.key for problem in caught.value.problems] == ["limits.buy_in_max_cents"]
