"""The floor's round is the table's own recall under the terms the journal holds, whatever its `[rules]` overrides.

Tables under random rule overrides on random profiles (surrender on fr-casino among them: the issue's round shown
at the floor as still in play) play rounds with surrenders through the real controller and journal; their feed's
`events` and `checkpoints` go into a real PostgreSQL; `query round` of random rounds equals the table's recall of
them, and still does with every stored row between the journal's terms and the checkpoint before the round gone:
the floor's round starts from the checkpoint, as the table's recall does, not from row 1.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from casino_floor import queries
from casino_floor.ingest import Ingest
from casino_floor.store import FloorStore
from simulators.dealer import Intent
from simulators.fast_table import FastTable
from table_runtime.feed.messages import Topics, checkpoint_message, state_message
from table_runtime.game.commands import Command
from table_runtime.game.events import Event
from table_runtime.game.phases import PLAYING
from table_runtime.game.rules import RuleOptions, TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds
from tests.floor.journals import feed_messages
from tests.floor.support import store_messages

OVERRIDES: tuple[dict[str, Any], ...] = (
    {"surrender": True}, {"surrender": True, "double_on": "9_10_11"},
    {"split_match": "rank", "max_hands_after_split": 2},
    {"pay_blackjack_before_bank": True, "surrender": True}, {"dealer_hits_soft_17": True},
    {"ten_card_charlie": True}, {"bank_blackjack_takes": "original_only", "surrender": True},
    {"double_after_split": False, "min_boxes_to_deal": 1})


class SurrenderingTable(FastTable):
    """The fast demo table whose dealer now and then gives up a hand (SURRENDER) where the rules offer it."""

    def __init__(self, controller: TableController, *, seed: int) -> None:
        super().__init__(controller, seed=seed, error_rate=0.1)
        self.choices = random.Random(f"surrender:{seed}")

    def act(self, intent: Intent) -> list[Event]:
        table = self.controller.table
        if table.rules.surrender and table.round is not None and table.round.phase == PLAYING \
                and self.choices.random() < 0.3:
            self.controller.press(Command.SURRENDER, {}, role="dealer", source="panel")  # refused where it may not
        return super().act(intent)


def random_rules(rng: random.Random) -> RuleOptions:
    rules = profile(rng.choice(("fr-casino", "fr-classic", "online"))).replace(**rng.choice(OVERRIDES))
    return rules.replace(min_boxes_to_deal=1)  # the demo's dealer may bet a single box


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_floors_round_equals_the_tables_recall_under_random_rule_overrides(
        tmp_path: Path, store: FloorStore, seed: int) -> None:
    rng = random.Random(seed)
    tables: dict[str, tuple[RuleOptions, list[dict[str, Any]]]] = {}
    messages: list[tuple[str, dict[str, Any]]] = []
    for index in range(3):
        table_id, rules = f"T{seed}{index}", random_rules(rng)
        with Journal.open(tmp_path / f"{table_id}.db") as journal:
            journal._db().execute("PRAGMA synchronous=OFF")  # test data only
            controller = TableController(table_id=table_id, rules=rules, limits=TableLimits(min_bet_cents=500),
                                         journal=journal, clock=time.time, checkpoint_rows=60)
            SurrenderingTable(controller, seed=seed * 10 + index).run(10)
            messages += [(name, payload) for _, name, payload in feed_messages(journal, "casino", table_id)
                         if name == "events"]
            sealed = journal.checkpoints_until(journal.last_seq)
            assert len(sealed) >= 3
            messages += [("checkpoints", checkpoint_message(Topics("casino", table_id), checkpoint,
                                                            journal=journal.journal_id, ts=time.time()).payload)
                         for checkpoint in sealed]
            messages.append(("state", state_message(Topics("casino", table_id), controller.snapshot(),
                                                    journal=journal.journal_id, ts=time.time()).payload))
            tables[table_id] = (rules, recall_rounds(journal, last=1000))
    await store_messages(store, Ingest(await store.load_tracks()), messages, now=0.0)
    surrendered = 0
    async with store.pool.acquire() as connection:
        for table_id, (rules, recalled) in tables.items():
            chosen = rng.sample(recalled, 4)
            if rules.surrender:  # the round: surrendered and settled
                chosen += [round_ for round_ in recalled if _surrendered(round_)][:2]
            for table_recall in chosen:
                floor = await queries.round_record(connection, table_id, table_recall["round"])
                assert {key: value for key, value in floor.items() if key != "journal"} == table_recall, (
                    seed, table_id, rules.to_dict(), table_recall["round"])
                surrendered += _surrendered(floor) and floor["result"] == "settled"
        for table_id, (_, recalled) in tables.items():  # the floor reads from the checkpoint before the round on
            table_recall = recalled[-2]
            journal_id = await queries._journal_of_round(connection, table_id, table_recall["round"])
            started = await connection.fetchval(
                "SELECT seq FROM events WHERE table_id = $1 AND type = 'RoundStarted' "
                "AND body::jsonb ->> 'round' = $2", table_id, str(table_recall["round"]))
            checkpoint = await queries.start_checkpoint(connection, table_id, journal_id, started)
            assert checkpoint is not None and checkpoint.seq > 100
            gone = await connection.execute(
                "DELETE FROM events WHERE table_id = $1 AND seq < $2 AND kind <> 'terms'", table_id, checkpoint.seq)
            assert int(gone.split()[-1]) > 100
            floor = await queries.round_record(connection, table_id, table_recall["round"])
            assert {key: value for key, value in floor.items() if key != "journal"} == table_recall
    assert surrendered > 0 or not any(rules.surrender for rules, _ in tables.values())


def _surrendered(recalled: dict[str, Any]) -> bool:
    return any(event["type"] == "HandSurrendered" for step in recalled["steps"] for event in step["events"])
