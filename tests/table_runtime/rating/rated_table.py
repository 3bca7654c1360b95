"""A real controller and journal with a clock the test moves, and the rated sessions of its journal read back
through the one fold (rating/session_fold.py), for the rating tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_runtime.core.inputs import CoreInput
from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import BehindBet, BetsLocked, BoxBet, CardDrawn, Confirm, Next, ShoeShuffled
from table_runtime.game.rules import RuleOptions, TableLimits, profile
from table_runtime.journal import CHECKPOINT_ROWS, Journal
from table_runtime.rating.detection import DetectionSettings
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.rating_watch import journal_ratings

T0 = 1_800_000_000.0  # 2027-01-15T08:00:00Z
# Six rounds of one shoe: each round's cards are lower than the last, so the true count before each rises
# (0, -0.17, 0, +0.53, +1.80, +3.13); the bank's draws finish every round.
ROUNDS = (("TH 6S 9D", "TC 8C"), ("TH 6S 8D", "3C 8H"), ("5H 2S TD", "4C 3C 8S"), ("5H 2S 6D", "3C 4C 5C 3D"),
          ("4H 3S 6D", "2C 4S 6C 2D"), ("2H 3H 4H", "5S 6D 2C 3C"))
RAMP = (1000, 1200, 1700, 2700, 5200, 8200)  # his stake climbs with the count
FLAT = (1000,) * 6
LOWERED = AdviceSettings(  # thresholds lowered to a six-round session
    every=6, detection=DetectionSettings(min_changes=5, z_threshold=1.0))


class RatedTable:
    """Table T01 (fr-casino, no burn cards) whose clock reads `T0 + at`."""

    def __init__(self, path: Path, rules: str = "fr-casino", *, checkpoint_rows: int | None = None) -> None:
        self.at = 0.0
        self.rules = self.rules_of(rules)
        self.journal = Journal.open(path / "journal.db")
        self.controller = TableController(table_id="T01", rules=self.rules, limits=TableLimits(),
                                          journal=self.journal, clock=lambda: T0 + self.at,
                                          checkpoint_rows=checkpoint_rows or CHECKPOINT_ROWS)
        self.submit(ShoeShuffled(shoe_id="S1"))

    @staticmethod
    def rules_of(name: str) -> RuleOptions:
        """The table's rules: the profile `name` without burn cards."""
        return profile(name).replace(burn_cards=0)

    def close(self) -> None:
        self.journal.close()

    def submit(self, item: CoreInput) -> None:
        self.controller.submit(item, source="display")

    def press(self, name: str, **args: Any) -> None:
        reply = self.controller.press(name, dict(args), role="dealer", source="display")
        assert reply["ok"], reply

    def lock(self, seated: dict[int, int], behind: dict[int, int] | None = None) -> None:
        """The bets of a round: box -> seated cents (owner boxN), box -> cents behind (owner boxN.behind)."""
        behind = behind or {}
        self.submit(BetsLocked(bets=tuple(
            BoxBet(box=box, seated_cents=cents, owner=f"box{box}",
                   behind=(BehindBet(owner=f"box{box}.behind", cents=behind[box]),) if box in behind else ())
            for box, cents in sorted(seated.items()))))

    def draw(self, codes: str) -> None:
        for card in parse_cards(codes):
            self.controller.draw(CardDrawn(card=card), source="shoe")

    def confirm(self) -> None:
        self.submit(Confirm())

    def messages(self) -> list[dict[str, Any]]:
        """The `ratings` messages of the whole journal, by a fold of its rows from the first."""
        return SessionFold("T01", self.rules).take_all(self.journal.entries())

    def journal_ratings(self, checkpoint_rows: int = 2000) -> int:
        """The rating fold's messages journaled as `rating` rows, as a table's rating watch does (in this process)."""
        return journal_ratings(self.journal, checkpoint_rows=checkpoint_rows)


def play_round(table: RatedTable, stake: int, cards: str, bank: str) -> None:
    """Box 1 stakes `stake`, takes two cards (the bank one between), stands; the bank draws; CONFIRM."""
    table.lock({1: stake})
    table.draw(cards)
    table.submit(Next())
    table.draw(bank)
    assert table.controller.table.phase == "settlement"
    table.confirm()


def play_ramp(table: RatedTable, stakes: tuple[int, ...]) -> None:
    """The six rounds of `ROUNDS` on box 1 at these stakes."""
    for stake, (cards, bank) in zip(stakes, ROUNDS, strict=True):
        play_round(table, stake, cards, bank)
