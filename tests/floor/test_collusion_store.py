"""`table-floor query collusion` through a real PostgreSQL: a table's real journal (two dealers' stints, their rounds
and alarms, published as the feed publishes them) and the rated sessions of its players; the dealer who overpays one
player is flagged with the evidence, the dealer whose overpayments fall on anyone is not (issue 34)."""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

from casino_floor.collusion_store import shared_rounds
from casino_floor.ingest import Ingest
from casino_floor.store import FloorStore
from simulators.dealer import Intent
from simulators.fast_table import FastTable
from table_runtime.core import chip_alarms
from table_runtime.game.events import Event
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.floor.journals import feed_messages
from tests.floor.rating_messages import Played, session_messages
from tests.floor.support import connected, floor_toml, store_messages
from tests.floor.test_queries import table_floor
from tests.table_runtime.staff.staff_table import staff_controller, staff_desk, staff_registry

ACCOMPLICE, OTHER, BEHIND = "p-a1a1a1a1a1a1", "p-b2b2b2b2b2b2", "p-c3c3c3c3c3c3"
# (box, player, stake): BEHIND bets smaller stakes behind the accomplice's box 1; the other boxes are anonymous
RATED = ((1, ACCOMPLICE, 1000), (2, OTHER, 1000), (1, BEHIND, 500))


class OverpayingTable(FastTable):
    """The fast table, its dealer letting an overpayment of one 5 EUR chip through: on `favourite`'s box in a
    `rate` of the rounds it plays, or (no favourite) on any box in play; each alarm (the chip watch's own
    `wrong_payout`, seen over expected) cleared by the supervisor at once."""

    def __init__(self, controller: TableController, *, seed: int, favourite: int | None, rate: float) -> None:
        super().__init__(controller, seed=seed, error_rate=0.05)
        self.favourite, self.rate, self.rng, self.planted = favourite, rate, random.Random(seed), set[int]()

    def act(self, intent: Intent) -> list[Event]:
        events = super().act(intent)
        table = self.controller.table
        round_ = table.round
        if round_ is None or not table.round_in_play or round_.number in self.planted:
            return events
        self.planted.add(round_.number)
        boxes = [box.number for box in round_.boxes]
        box = self.favourite if self.favourite is not None else self.rng.choice(boxes)
        if box in boxes and self.rng.random() < self.rate:
            stake = round_.boxes[boxes.index(box)].bet.seated_cents
            alarm = chip_alarms.wrong_payout(f"box{box}", 2 * stake, 2 * stake + 500, stake)
            self.controller.acknowledge(self.controller.raise_alarm(alarm), by="supervisor")
        return events


async def store_table(tmp_path: Path, store: FloorStore) -> None:
    """Dealer D1 favours box 1 (the accomplice) in half its rounds; D2 overpays a random box in 15 % of his; each
    deals two stints of 40 rounds."""
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        for seed, dealer in enumerate(("D1", "D2", "D1", "D2")):
            desk.take_table(dealer, "pin")
            OverpayingTable(controller, seed=seed, favourite=1 if dealer == "D1" else None,
                            rate=0.5 if dealer == "D1" else 0.15).run(40)
        desk.leave_table()
        records = [entry for entry in journal.entries() if entry.kind == "round"]
        messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T1")]
    started = dt.datetime.fromtimestamp(records[0].ts - 5, dt.UTC)
    for first_seq, (box, player, stake) in enumerate(RATED, start=1):
        played = [Played(f"T1-{record.body['round']}", stake, 0, 5, 6, seconds=120) for record in records
                  if box in [seat["box"] for seat in record.body["boxes"]]]
        messages += [("ratings", message) for message in session_messages("T1", first_seq, player, box, started,
                                                                           played)]
    await store_messages(store, Ingest(await store.load_tracks()), messages, now=1_800_000_000.0)


async def test_the_dealer_who_overpays_one_player_is_flagged_with_the_rounds_and_amounts(
        tmp_path: Path, store: FloorStore, database: str) -> None:
    await store_table(tmp_path, store)
    async with connected(database) as connection:
        rounds = await shared_rounds(connection, 0.0, 4e9)
        planted = await connection.fetch(
            "SELECT a.round, a.box, c.cleared_by FROM alarms a JOIN alarm_clears c USING (table_id, journal, alarm_id) "
            "WHERE a.kind = 'wrong_payout'")
    assert {shared.dealer for shared in rounds} == {"D1", "D2"}
    assert len({shared.round_id for shared in rounds}) == 160
    assert {shared.player for shared in rounds} == {ACCOMPLICE, OTHER, ""}, "box 1's: the larger stake's"
    path = tmp_path / "floor.toml"
    path.write_text(floor_toml(database, ["mqtt://127.0.0.1:1883"], "casino"), encoding="utf-8")
    code, out, err = await table_floor(path, "query", "collusion", "--from", "2023-01-01T00:00", "--to",
                                       "2030-01-01T00:00", "--format", "json", "--all")
    assert code == 0, err
    found = {(row["dealer"], row["player"]): row for row in json.loads(out)}
    assert set(found) == {("D1", ACCOMPLICE), ("D1", OTHER), ("D2", ACCOMPLICE), ("D2", OTHER)}
    assert [key for key, row in found.items() if row["flagged"]] == [("D1", ACCOMPLICE)]
    flagged = found[("D1", ACCOMPLICE)]
    d1_rounds = {shared.round_id for shared in rounds if shared.dealer == "D1"}
    planted_d1 = {f"T1-{row['round']}" for row in planted if row["box"] == 1 and f"T1-{row['round']}" in d1_rounds}
    overpaid = [evidence for evidence in flagged["evidence"] if evidence["kind"] == "wrong_payout"]
    assert {evidence["round"] for evidence in overpaid} == planted_d1 and len(overpaid) == len(planted_d1) >= 10
    assert {(evidence["cents"], evidence["cleared_by"], evidence["box"]) for evidence in overpaid} == \
        {(500, "supervisor", 1)}
    assert flagged["favoured_rounds"] == len({evidence["round"] for evidence in flagged["evidence"]})
    assert flagged["favoured_cents"] == sum(evidence["cents"] for evidence in flagged["evidence"])
    assert all(row["cleared_by"] == "supervisor" for row in planted)
    assert flagged["p_dealer"] <= flagged["threshold"]
    honest = found[("D2", OTHER)]
    assert honest["favoured_rounds"] > 0 and not honest["flagged"], "D2's errors fall on every box"

    code, out, err = await table_floor(path, "query", "collusion", "--from", "2023-01-01T00:00", "--to",
                                       "2030-01-01T00:00")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("dealer,player,flagged") and lines[1].startswith("D1,p-a1")
    code, _, err = await table_floor(path, "query", "collusion", "--from", "2023-01-01T00:00", "--to",
                                     "2030-01-01T00:00", "--alpha", "2")
    assert code == 2 and "a chance between 0 and 1" in err and "Traceback" not in err
