"""The floor's drop and win count the hyper black jack stakes (55-4 6°) with the boxes': a hyper round played on
a real controller and journal, its feed messages folded by the pit's read model."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

from casino_floor.shifts import Shifts
from casino_floor.tables_view import FloorView
from table_runtime.config import zone_names
from table_runtime.core.inputs import ZoneChanged, ZoneChip
from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController
from tests.floor.journals import feed_messages

UIDS = (f"E004{n:012X}" for n in itertools.count(1))


def test_the_drop_and_the_win_include_the_hyper_stakes(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "hyper.db")
    rules = profile("fr-casino").replace(hyper_blackjack=True)
    zones = zone_names(7, hyper=True)
    controller = TableController(table_id="T7", rules=rules, limits=TableLimits(), journal=journal, clock=time.time,
                                 zones=zones)
    held: dict[str, tuple[ZoneChip, ...]] = {zone: () for zone in zones}

    def put(zone: str, cents: int) -> None:
        held[zone] = tuple(ZoneChip(uid=next(UIDS), cents=500) for _ in range(cents // 500))
        controller.report_zones([ZoneChanged(zone=zone, chips=held[zone])])

    controller.report_zones([ZoneChanged(zone=zone, chips=()) for zone in zones])
    controller.submit(ShoeShuffled(shoe_id="s1"))
    for card in parse_cards("2C 2D 2H 2S 3C"):
        controller.draw(CardDrawn(card=card), source="shoe")
    put("box1", 1000)
    put("hyper.bust", 1000)
    put("hyper.20", 500)
    for case, cents in (("bust", 1000), ("20", 500)):
        assert controller.press("HYPER_ASSIGN", {"case": case, "box": 1, "cents": cents}, role="dealer",
                                source="display")["ok"]
    assert controller.press("DEAL", {}, role="dealer", source="display")["ok"]
    for card in parse_cards("TC 6D 9C"):  # box 1 19 against a 6
        controller.draw(CardDrawn(card=card), source="shoe")
    controller.press("NEXT", {}, role="dealer", source="display")
    for card in parse_cards("TD 8S"):  # the bank busts: box 1 +10.00, « BUST » +20.00, « 20 » -5.00
        controller.draw(CardDrawn(card=card), source="shoe")
    put("hyper.20", 0)
    put("box1", 2000)
    put("hyper.bust", 3000)
    assert controller.press("CONFIRM", {}, role="dealer", source="display")["ok"]
    assert [alarm["kind"] for alarm in controller.alarms.active] == []

    (record,) = [entry for entry in journal.entries() if entry.kind == "round"]
    stakes = sorted((p["kind"], p["staked_cents"], p["net_cents"]) for p in record.body["payouts"])
    assert stakes == [("hyper.20", 500, -500), ("hyper.bust", 1000, 2000), ("original", 1000, 1000)]
    view = FloorView(shifts=Shifts((0,)))
    for _, name, payload in feed_messages(journal, "casino", "T7"):
        view.apply(name, payload)
    (shift,) = view.overview()["tables"][0]["shifts"]
    assert (shift["drop_cents"], shift["win_cents"]) == (2500, -2500)  # 25.00 staked, the house paid 25.00 net
    journal.close()
