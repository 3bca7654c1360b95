"""ChipLink keeps the chip watcher in step with the round; when the two lose step, the table goes on.

Driven with real readings (the reader events the driver yields), a real watcher and a real controller.
"""

from __future__ import annotations

from pathlib import Path

from drivers.chip_reader import ChipsScanned, ZoneReading
from firmware_bridge.rfid import Tag
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.registry import RegisteredChip
from table_runtime.chips.watch import ChipWatcher
from table_runtime.config import zone_names
from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import CardDrawn, Confirm, Next, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.chip_link import ChipLink
from table_runtime.runtime.controller import TableController


class Table:
    def __init__(self, path: Path) -> None:
        self.journal = Journal.open(journal_path(path))
        self.controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                          journal=self.journal, clock=lambda: 1.0)
        self.issuer = ChipIssuer(7, seed=1)
        self.zones: dict[str, list[Tag]] = {zone: [] for zone in zone_names(7)}
        self.now = 0.0
        registry = {}
        for chip in self.issuer.issue(500, 40):
            assert chip.denomination_cents is not None
            registry[chip.uid] = RegisteredChip(uid=chip.uid, denomination_cents=chip.denomination_cents,
                                                casino_id=7, status="active")
        self.free = list(self.issuer.issued.values())
        self.watcher = ChipWatcher(self.zones, registry=registry, casino_id=7)
        self.link = ChipLink(self.watcher, self.controller)
        self.controller.subscribe(self.link.follow)

    def put(self, zone: str, chips: int) -> None:
        self.zones[zone] += [self.free.pop() for _ in range(chips)]

    def scan(self, times: int = 3) -> None:
        for _ in range(times):
            self.now += 0.1
            readings = tuple(ZoneReading(zone=zone, tags=tuple(tags)) for zone, tags in self.zones.items())
            self.link.reader_event(ChipsScanned(reader="r", at=self.now, readings=readings))

    def draw(self, text: str) -> None:
        for card in parse_cards(text):
            self.controller.submit(CardDrawn(card=card), source="shoe")


def watch_phase(table: Table) -> str:
    return table.watcher.phase


def test_bets_locked_from_the_zones_and_a_lost_step_suspends_the_watch_not_the_table(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    controller.submit(ShoeShuffled(shoe_id="S1"))
    table.draw("9C 9D 9H 9S 8C")
    table.put("box1", 2)
    table.scan()
    assert table.link.lock_bets(source="test")
    round_ = controller.table.round
    assert round_ is not None and [(b.number, b.bet.seated_cents) for b in round_.boxes] == [(1, 1000)]
    table.draw("TS 6H 5D")  # box1 15 against a 6: DOUBLE is allowed, so box1's window is open
    assert watch_phase(table) == "locked"

    table.watcher.close_window("box1")  # something else closed it: the link and the watcher disagree
    controller.submit(Next(), source="panel")  # the turn moves on: closing box1's window fails
    kinds = [alarm["kind"] for alarm in controller.alarms.active]
    assert kinds == ["chip_watch_suspended"]
    assert watch_phase(table) == "betting"  # the watch is off for this round...
    table.draw("TC")  # ...and the game goes on: 6 + 10 = 16, the bank draws
    assert round_.phase == "bank"
    table.draw("2C")
    assert round_.phase == "settlement" and {p.outcome for p in round_.payouts} == {"lose"}
    table.scan()
    assert watch_phase(table) == "betting"  # not re-adopted in the same round
    controller.submit(Confirm())
    assert round_.phase == "closed"
    table.zones["box1"] = []
    table.put("box2", 3)
    table.scan(6)
    assert table.link.lock_bets(source="test")  # the next round is watched again
    assert watch_phase(table) == "locked"
    table.journal.close()


def test_chips_taken_off_the_insurance_line_during_its_window_are_past_posting(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    controller.submit(ShoeShuffled(shoe_id="S1"))
    table.draw("9C 9D 9H 9S 8C")
    table.put("box1", 2)
    table.put("box1.insurance", 1)  # on the line before the deal: out of place at the lock
    table.scan()
    assert table.link.lock_bets(source="test")
    assert [alarm["kind"] for alarm in controller.alarms.active] == ["chips_out_of_place"]
    assert watch_phase(table) == "locked"  # the lock's own alarm does not undo the lock
    table.draw("TS AH 5D")  # the bank's ace: the insurance window opens
    assert controller.table.round is not None and controller.table.round.phase == "insurance"
    table.zones["box1.insurance"] = []  # the chip leaves the line while the window is open
    table.scan(6)
    assert table.link.insurance_inputs() == []  # CONFIRM closes the window: nothing is on the line to insure
    alarms = {alarm["kind"]: alarm for alarm in controller.alarms.active}
    past = alarms["past_posting"]  # TABLE.md What the controller must catch: chips removed from a locked zone
    assert past["box"] == 1 and past["amounts"] == {"expected_cents": 500, "seen_cents": 0}
    assert "during the insurance window" in past["message"]
    table.journal.close()


def test_after_a_restart_the_lock_of_the_zones_still_reports_chips_out_of_place(tmp_path: Path) -> None:
    first = Table(tmp_path)
    first.controller.submit(ShoeShuffled(shoe_id="S1"))
    first.draw("9C 9D 9H 9S 8C")
    first.put("box1", 2)
    first.scan()
    assert first.link.lock_bets(source="test")
    first.draw("TS 6H 5D")  # box1 plays 15 against a 6
    first.journal.close()  # the power goes

    second = Table(tmp_path)  # the journal replays the round
    round_ = second.controller.table.round
    assert round_ is not None and round_.phase == "playing"
    second.put("box1", 2)
    second.put("box2.behind", 1)  # a behind stake on a box nobody plays
    second.scan(4)
    assert watch_phase(second) == "locked"  # the recovered round adopted the zones
    alarms = [alarm for alarm in second.controller.alarms.active if alarm["kind"] == "behind_without_seated"]
    assert [alarm["box"] for alarm in alarms] == [2]
    second.journal.close()
