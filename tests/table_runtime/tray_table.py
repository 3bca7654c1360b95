"""A table with a chip tray and no devices, for the tray's tests: a real controller and journal with box1's zones and
four tray rows, the readers' edge (`ZoneReporter`) on 25.00 €, 5.00 € and 1.00 € chips of casino 7, and the reader
events the driver yields (`ChipsScanned`), handed on as the runtime's reader loop does (`TableApp.report_chips`).

The dealer's hands are the test's: `pay` takes chips from the tray onto a box, `collect` drops a box's chips into the
tray, a player's chips come from `pocket` and go back there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drivers.ports import ChipsScanned, ZoneReading
from firmware_bridge.rfid import AntennaStatus, Tag
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import RegisteredChip
from table_runtime.core.buy_ins import BuyIn
from table_runtime.core.tray import tray_row
from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import CardDrawn, Next, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController

ROWS = tuple(tray_row(number) for number in range(1, 5))
DENOMINATIONS = (2500, 500, 100)
BOX_ZONES = ("box1", "box1.behind", "box1.insurance")


class TrayTable:
    """The tray starts with 20 chips of each denomination per row; the player's pocket holds 40 5.00 € chips."""

    def __init__(self, path: Path) -> None:
        self.journal = Journal.open(journal_path(path))
        self.zones: dict[str, list[Tag]] = {zone: [] for zone in (*BOX_ZONES, *ROWS)}
        self.controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                          journal=self.journal, clock=lambda: 1.0, zones=tuple(self.zones))
        issuer = ChipIssuer(7, seed=1)
        self.registry: dict[str, RegisteredChip] = {}
        for row, cents in [(row, cents) for row in ROWS for cents in DENOMINATIONS]:
            self.zones[row] += issuer.issue(cents, 20)
        self.pocket = issuer.issue(500, 40)
        self.stranger = issuer.issue(500, 3)  # chips of the house on no zone: another table's, a player's pocket
        for chip in issuer.issued.values():
            assert chip.denomination_cents is not None
            self.registry[chip.uid] = RegisteredChip(uid=chip.uid, denomination_cents=chip.denomination_cents,
                                                     casino_id=7, status="active")
        self.reporter = ZoneReporter(self.zones, registry=self.registry, casino_id=7)
        self.app = TableApp(self.controller, chips=self.reporter)
        self.now = 0.0
        self.faulty: set[str] = set()  # rows whose antenna reads nothing complete

    def scan(self, times: int = 6) -> None:
        for _ in range(times):
            self.now += 0.1
            readings = tuple(ZoneReading(zone=zone, tags=tuple(tags),
                                         status=AntennaStatus.OPEN if zone in self.faulty else AntennaStatus.OK)
                             for zone, tags in self.zones.items())
            self.app.report_chips(self.reporter.reader_event(ChipsScanned(reader="r", at=self.now,
                                                                          readings=readings)))

    def press(self, name: str, role: str = "dealer", **args: Any) -> dict[str, Any]:
        return self.app.controller.press(name, dict(args), role=role, source="panel")

    def draw(self, text: str) -> None:
        for card in parse_cards(text):
            self.controller.draw(CardDrawn(card=card), source="shoe")

    # -- the dealer's and the player's hands ---------------------------------------------------
    def bet(self, chips: int = 2) -> None:
        self.zones["box1"] += [self.pocket.pop() for _ in range(chips)]

    def pay(self, zone: str, cents: int) -> list[Tag]:
        """The dealer pays `cents` from the tray onto `zone`, the largest chips first."""
        paid: list[Tag] = []
        for row in ROWS:
            for chip in sorted(self.zones[row], key=lambda tag: -(tag.denomination_cents or 0)):
                value = chip.denomination_cents or 0
                if value <= cents:
                    self.zones[row].remove(chip)
                    paid.append(chip)
                    cents -= value
        assert cents == 0, "the tray cannot pay that"
        self.zones[zone] += paid
        return paid

    def buy_in(self, chips: int = 10) -> None:
        """The player changes banknotes for `chips` 5.00 € chips out of the tray; the dealer records the buy-in."""
        sold = [chip for row in ROWS for chip in self.zones[row] if chip.denomination_cents == 500][:chips]
        assert len(sold) == chips, "the tray has not that many 5.00 € chips"
        for chip in sold:
            for row in ROWS:
                if chip in self.zones[row]:
                    self.zones[row].remove(chip)
        self.pocket += sold
        self.controller.submit(BuyIn(cents=500 * chips))

    def collect(self, zone: str, row: str = ROWS[0]) -> None:
        self.zones[row] += self.zones[zone]
        self.zones[zone] = []

    def player_takes(self, zone: str) -> None:
        self.pocket += self.zones[zone]
        self.zones[zone] = []

    def round(self, *, win: bool, scans: int = 6) -> None:
        """One round of box1 (10.00 €) against the bank's 6: won (20 against 18) or lost (17 against 20); the dealer
        pays or collects, the round is confirmed, the player takes his chips back."""
        self.controller.submit(ShoeShuffled(shoe_id="S1"))
        self.draw("9C 9D 9H 9S 8C")
        self.bet()
        self.scan(scans)
        assert self.press("DEAL")["message"] == "bets locked"
        self.draw("TS 6D TC" if win else "TS 6D 7C")
        self.controller.submit(Next(), source="panel")
        self.draw("TH 2S" if win else "TH 4S")
        if win:
            self.pay("box1", 1000)
        else:
            self.collect("box1")
        self.scan(scans)
        assert self.press("CONFIRM")["ok"]
        self.player_takes("box1")
        self.scan(scans)

    def kinds(self) -> list[str]:
        return [alarm["kind"] for alarm in self.controller.alarms.active]

    def variances(self) -> list[dict[str, Any]]:
        return [alarm for alarm in self.controller.alarms.active if alarm["kind"] == "tray_variance"]
