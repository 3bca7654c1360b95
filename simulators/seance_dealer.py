"""The simulated dealer's séance: the tray it holds, counted by hand, and what it asks of the table between rounds.

`SeanceDealer.steps(seances)` says what the dealer and the supervisor do before the next bets lock: open
a séance with the tray counted (the initial advance: 3,000 times the table minimum, arrêté du 14 mai 2007,
art. 49), record the players' buy-ins (the chips sold leave the tray), ask for a fill when the tray runs low and
send a credit back when it holds too much (each slip confirmed by the supervisor), take a tip now and then into
the tronc (never the tray), and close the séance after `rounds` rounds with the tray counted. `settled(net)` keeps
the tray: a round's payouts leave it, the losing stakes come into it. `identities(seances, alarms)`: the
supervisor records the reference of the identity the table asks for past 2,000 € in a séance (CMF L.561-13),
right after the buy-in that asked.

The tray is the dealer's own count, never read back from the table: the test that win = −players' net checks the
table's accounts against it. A demo restarted in a séance takes the tray the table expects (its chips did not move
while the controller was down). Without a tray reader the counts are manual; with the tray read by RFID
(simulators/demo_tray.py) the live table counts the opener and the closer from the table's read of it
(simulators/live_table.py `seance_steps`), and the fills are of the opener so counted.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from table_runtime.core.seance import Seances
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.commands import Command, Role

DENOMINATIONS = (50000, 10000, 2500, 500, 100, 50)  # the tray's rows: 500 €, 100 €, 25 €, 5 €, 1 €, 0.50 €
INITIAL_ADVANCE_STAKES = 3000  # black jack: 3,000 times the table minimum (art. 49)


def counted(cents: int, denominations: Iterable[int] = DENOMINATIONS) -> dict[str, int]:
    """`cents` as a dealer counts a tray, by denomination (the fewest chips); a remainder below the smallest
    is counted in cents (never met: every stake and payout is a multiple of 0.50 €)."""
    chips: dict[str, int] = {}
    for denomination in denominations:
        number, cents = divmod(cents, denomination)
        if number:
            chips[str(denomination)] = number
    if cents:
        chips["1"] = cents
    return chips or {str(DENOMINATIONS[-1]): 0}


@dataclass(frozen=True, slots=True)
class SeanceStep:
    """One command of the séance and who gives it; `tray_cents`: what it moves into (+) or out of (−) the tray."""

    command: str
    args: Mapping[str, Any]
    role: str = Role.DEALER
    tray_cents: int = 0


class SeanceDealer:
    """Opens and closes séances every `rounds` rounds, keeps the tray, asks for fills, takes tips and buy-ins."""

    def __init__(self, rng: random.Random, *, rounds: int, min_bet_cents: int, boxes: int,
                 buy_in_chance: float = 0.3, tip_chance: float = 0.1) -> None:
        self.rng = rng
        self.rounds = rounds
        self.opener_cents = INITIAL_ADVANCE_STAKES * min_bet_cents
        self.boxes = boxes
        self.buy_in_chance = buy_in_chance
        self.tip_chance = tip_chance
        self.tray_cents: int | None = None  # the dealer's count of his tray, once a séance is open
        self.references = 0

    def settled(self, players_net_cents: int) -> None:
        """A round settled: what the players won left the tray, what they lost came into it."""
        if self.tray_cents is not None:
            self.tray_cents -= players_net_cents

    def took(self, step: SeanceStep) -> None:
        """The table took `step`: the tray as it now is."""
        if step.command == Command.SEANCE_OPEN:  # the opener counted, by hand or by the tray's read
            self.tray_cents = sum(int(denomination) * number for denomination, number in step.args["chips"].items())
        elif step.command == Command.SEANCE_CLOSE:
            self.tray_cents = None
        elif self.tray_cents is not None:
            self.tray_cents += step.tray_cents

    def steps(self, seances: Seances) -> list[SeanceStep]:
        """What the dealer and the supervisor do before the next bets lock."""
        account = seances.current
        if account is None:
            return [self.opening()]
        if self.tray_cents is None:  # a restart in a séance: the tray's chips stayed where they were
            self.tray_cents = account.expected_tray_cents
        out: list[SeanceStep] = []
        if account.rounds >= self.rounds:  # the séance's close, and the next one's opening
            return [self.close(), self.opening()]
        rng = self.rng
        if rng.random() < self.buy_in_chance:
            cents = rng.choice((5000, 10000, 20000, 50000, 100000, 150000))
            tender = "marker" if rng.random() < 0.2 else "cash"
            out.append(SeanceStep(Command.BUY_IN, {"cents": cents, "tender": tender,
                                                   "box": rng.randint(1, self.boxes)}, tray_cents=-cents))
        if rng.random() < self.tip_chance:
            out.append(SeanceStep(Command.TIP, {"box": rng.randint(1, self.boxes), "cents": 500}))
        tray = self.tray_cents + sum(step.tray_cents for step in out)
        number = seances.slips_issued + 1
        opener = account.opener.cents  # the initial advance as counted at the open
        if tray < opener * 85 // 100:  # low: a complementary advance, the initial one again (art. 49)
            out += [SeanceStep(Command.FILL, {"chips": counted(opener)}),
                    SeanceStep(Command.SLIP_CONFIRM, {"number": number}, Role.SUPERVISOR, opener)]
        elif tray > 2 * opener:  # too much: the surplus back to the cash desk
            back = tray - opener
            out += [SeanceStep(Command.CREDIT, {"chips": counted(back)}),
                    SeanceStep(Command.SLIP_CONFIRM, {"number": number}, Role.SUPERVISOR, -back)]
        return out

    def opening(self) -> SeanceStep:
        """A séance's opening: the initial advance counted into the tray."""
        return SeanceStep(Command.SEANCE_OPEN, {"chips": counted(self.opener_cents), "source": "manual"})

    def close(self) -> SeanceStep:
        """The séance's close: the tray counted."""
        assert self.tray_cents is not None
        return SeanceStep(Command.SEANCE_CLOSE, {"chips": counted(self.tray_cents), "source": "manual"})

    def identities(self, seances: Seances, alarms: Iterable[Mapping[str, Any]]) -> list[SeanceStep]:
        """The supervisor takes the identity the table asks for and records its reference (never the identity)."""
        account = seances.current
        assert account is not None
        out = []
        for alarm in alarms:
            box = alarm.get("box")
            if alarm["kind"] == AlarmKind.AML_IDENTITY_REQUIRED and box is not None \
                    and f"box{box}" not in account.identified:
                self.references += 1
                out.append(SeanceStep(Command.IDENTITY_RECORDED,
                                      {"box": box, "reference": f"DEMO-{self.references:05d}"}, Role.SUPERVISOR))
        return out
