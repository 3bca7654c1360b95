"""The table's lifetime meters: counters that never go down for the table's life (GLI-24's accounting meters).

Folded from what the journal's inputs do (`count`, called by `TableCore.step` for every input, live and in every
replay, so a restart, the audit and recall agree), sealed in checkpoints (`state` / `restore`), shown in the
snapshot (`view`: the supervisor's view, the feed's `state`). Pure: no I/O, no clock.

| meter | counts |
|---|---|
| `handle_cents` | every stake of a closed round (seated, behind, doubles, splits, insurance, hyper), per box too |
| `collected_cents` | what the table collected of the stakes lost, per box too |
| `paid_cents` | what the table paid on the stakes won (the net, the stake returned not counted), per box too |
| `drop_cents` | every buy-in (`BuyInRecorded`: cash and markers, `drop_cash_cents`, `drop_marker_cents`) |
| `rounds` | rounds closed (settled and confirmed) |
| `voids` | rounds voided (their stakes count nowhere: the round did not happen) |
| `hands` | player hands settled in closed rounds, per box too |
| `fills_cents`, `fills` | the séance's fills (complementary advances) confirmed by the supervisor, and how many |
| `credits_cents`, `credits` | the séance's credits (chips back to the cash desk) confirmed, and how many |
| `tips_cents`, `tips` | the tips into the tronc, and how many, per box too |

A buy-in for a box counts in that box's `drop_cents` too; the fills and credits are the tray's, of no box.

The table's win is `collected_cents - paid_cents` (`view` says it; it can be negative, the meters cannot go
down). A round counts when it closes, so a round voided after its settlement counts only as a void.

A journal whose checkpoints were sealed before the meters existed: a start from such a checkpoint counts the meters
from there (`complete` False, in the view and in every checkpoint sealed after it), since the rows before it are
not folded again at a start; a journal started with the meters counts them from its first row (`complete` True).

The séance's fills, credits and tips (core/seance.py) are meters of the same table: `add` takes a named amount
(`FILLS`, `CREDITS`, `TIPS`, or another name a later module defines) from an input's events; the fold, the
checkpoint and the view carry every name it was given. A meter is never decreased: `add` refuses a negative.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from table_runtime.game.events import BuyInRecorded, Event, RoundClosed, RoundVoided, SeanceUpdated
from table_runtime.game.round import Round

FILLS: Final = "fills_cents"
CREDITS: Final = "credits_cents"
TIPS: Final = "tips_cents"
TABLE_METERS: Final = ("handle_cents", "collected_cents", "paid_cents", "drop_cents", "drop_cash_cents",
                       "drop_marker_cents", "rounds", "voids", "hands")
BOX_METERS: Final = ("handle_cents", "collected_cents", "paid_cents", "hands")
SEANCE_METERS: Final = (FILLS, "fills", CREDITS, "credits", TIPS, "tips")
"""The séance's meters (`add`ed, so absent from a table's state until its first one: shown as 0 by `view`)."""
BOX_ADDED: Final = ("drop_cents", TIPS, "tips")
"""A box's meters of its buy-ins and tips (absent from its state until its first one, as the séance's)."""
# A séance step's action -> the meter its cents go to (core/seance.py `SeanceUpdated.action`), and its count.
_SEANCE_ACTIONS: Final = {"fill_confirmed": (FILLS, "fills"), "credit_confirmed": (CREDITS, "credits"),
                          "tip": (TIPS, "tips")}


class Meters:
    """The lifetime meters of one table, and of each of its boxes."""

    def __init__(self, *, complete: bool = True) -> None:
        self.table: dict[str, int] = dict.fromkeys(TABLE_METERS, 0)
        self.boxes: dict[int, dict[str, int]] = {}
        self.complete = complete  # counted from the journal's first row (False: from a checkpoint older than them)

    def count(self, events: Iterable[Event], round_: Round | None) -> None:
        """What one input's `events` add (`round_`: the table's round after them, whose payouts a close counts)."""
        for event in events:
            if isinstance(event, RoundClosed) and round_ is not None and round_.number == event.round:
                self._closed(round_)
            elif isinstance(event, RoundVoided):
                self.table["voids"] += 1
            elif isinstance(event, BuyInRecorded):
                self.table["drop_cents"] += event.cents
                self.table["drop_marker_cents" if event.tender == "marker" else "drop_cash_cents"] += event.cents
                if event.box is not None:
                    self._box_add(event.box, "drop_cents", event.cents)
            elif isinstance(event, SeanceUpdated) and event.action in _SEANCE_ACTIONS:
                cents_meter, count_meter = _SEANCE_ACTIONS[event.action]
                self.add(cents_meter, event.cents, box=event.box if event.action == "tip" else None)
                self.add(count_meter, 1, box=event.box if event.action == "tip" else None)

    def _closed(self, round_: Round) -> None:
        self.table["rounds"] += 1
        hands: set[tuple[int, int]] = set()
        for payout in round_.payouts:
            box = self.boxes.setdefault(payout.box, dict.fromkeys(BOX_METERS, 0))
            collected, paid = max(0, -payout.net_cents), max(0, payout.net_cents)
            for meters in (self.table, box):
                meters["handle_cents"] += payout.staked_cents
                meters["collected_cents"] += collected
                meters["paid_cents"] += paid
            hand = (payout.box, payout.hand)
            if payout.kind not in ("insurance",) and not payout.kind.startswith("hyper") and hand not in hands:
                hands.add(hand)
                box["hands"] += 1
                self.table["hands"] += 1

    def add(self, name: str, cents: int, *, box: int | None = None) -> None:
        """A named amount (a fill, a credit, a tip: core/seance.py) added to the table's meter `name`, and to box
        `box`'s when it is one box's (a tip)."""
        if cents < 0:
            raise ValueError(f"{name}: a meter never goes down ({cents})")
        self.table[name] = self.table.get(name, 0) + cents
        if box is not None:
            self._box_add(box, name, cents)

    def _box_add(self, box: int, name: str, cents: int) -> None:
        meters = self.boxes.setdefault(box, dict.fromkeys(BOX_METERS, 0))
        meters[name] = meters.get(name, 0) + cents

    # -- checkpoints and views -----------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {"table": dict(self.table), "complete": self.complete,
                "boxes": {str(box): dict(meters) for box, meters in sorted(self.boxes.items())}}

    @classmethod
    def restore(cls, state: Mapping[str, Any] | None) -> Meters:
        """The meters a checkpoint's `state()` describes; None (a checkpoint sealed before them): counted from it."""
        if state is None:
            return cls(complete=False)
        meters = cls(complete=bool(state.get("complete", True)))
        meters.table.update({str(name): int(value) for name, value in state.get("table", {}).items()})
        meters.boxes = {int(box): {**dict.fromkeys(BOX_METERS, 0), **{str(k): int(v) for k, v in values.items()}}
                        for box, values in state.get("boxes", {}).items()}
        return meters

    def view(self) -> dict[str, Any]:
        """The snapshot's `meters`: the table's, its win, and each box's."""
        table = {**dict.fromkeys(SEANCE_METERS, 0), **self.table}
        return {**table, "win_cents": table["collected_cents"] - table["paid_cents"], "complete": self.complete,
                "boxes": {str(box): {**dict.fromkeys(BOX_ADDED, 0), **meters}
                          for box, meters in sorted(self.boxes.items())}}
