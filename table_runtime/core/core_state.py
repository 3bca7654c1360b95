"""The table core between two rounds as plain JSON, and the core rebuilt from it (the journal's checkpoints).

A checkpoint is taken just before the input that starts a round (a `BetsLocked` the round accepted): there
is then no round in play, and that input replaces whatever round the table last held with a new one, so
the state that matters is small: the shoe's account, the rounds counter, the held cards, and the zones'
contents (the chip watch resets its locks and windows at the lock). `restore` builds a core that, fed the
same inputs from there, gives the same events as the core that played them.

Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from table_runtime.core.alarm_ledger import AlarmLedger
from table_runtime.core.inputs import CoreInput, ZoneChip
from table_runtime.core.seat_changes import SeatChanges
from table_runtime.core.seating import Seating
from table_runtime.core.shift import Shift
from table_runtime.core.table_core import TableCore
from table_runtime.errors import JournalError
from table_runtime.game.cards import Card
from table_runtime.game.events import Event, RoundStarted
from table_runtime.game.inputs import BetsLocked
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.table import Table

STATE_VERSION = 1


def checkpoint_before(item: CoreInput | None, core: TableCore, seq: int, last_checkpoint: int, every: int,
                      apply: Callable[[], list[Event]]) -> tuple[list[Event], dict[str, Any] | None]:
    """Where a checkpoint goes: `apply()` folds `item`, the input after row `seq` (None: a row that is no input),
    into `core`; returned with its events is the state to seal after row `seq` when one is due there (else None):
    just before an input that starts a round (a bet lock between rounds), `every` rows or more after the last
    checkpoint (at row `last_checkpoint`, 0: none). The controller and the bench's journal filler both ask this."""
    due = (isinstance(item, BetsLocked) and not core.table.round_in_play and seq > 0
           and seq - last_checkpoint >= every)
    state = checkpoint_state(core) if due else None  # what the rows up to `seq` fold to
    events = apply()
    if state is None or not any(isinstance(event, RoundStarted) for event in events):
        return events, None
    return events, state


def table_state(table: Table) -> dict[str, Any]:
    """The game table between rounds (see the module docstring)."""
    shoe = table.shoe
    return {
        "shoe": {"shoe_id": shoe.shoe_id, "loaded": shoe.loaded, "counts": list(shoe.counts), "dealt": shoe.dealt,
                 "burns_left": shoe.burns_left, "cut_card_reached": shoe.cut_card_reached, "rounds": shoe.rounds},
        "rounds_started": table.rounds_started,
        "held": {"cards": [[card.code, reason, mark] for card, reason, mark in table.held_cards.cards],
                 "loose": table.held_cards.loose},
    }


def core_state(core: TableCore) -> dict[str, Any]:
    """The whole core between rounds: the table and the zones' contents."""
    chips = core.chips
    return {
        "version": STATE_VERSION,
        "table": table_state(core.table),
        "zones": {zone: [_chip(chip) for chip in chips.contents[zone]] for zone in sorted(chips.contents)},
        "reported": sorted(chips.reported),
        # refused chips a zone holds past those listed, by kind (absent in checkpoints written before it)
        "unlisted": {zone: [[kind, count] for kind, count in chips.unlisted[zone]] for zone in sorted(chips.unlisted)},
        # who sits where (core/seating.py), only when someone is seated: a checkpoint from before it reads the same
        **({"seats": core.seats.state()} if core.seats.players else {}),
        # the paused boxes and the players behind (core/seat_changes.py), only when there are any
        **({"seat_changes": core.seat_changes.state()} if core.seat_changes else {}),
        # the last shoe event journaled (boot id, sequence), once there is one (a checkpoint before it has none)
        **({"shoe_mark": list(core.shoe_mark)} if core.shoe_mark is not None else {}),
        # the dealer on shift (core/shift.py), only while one is: a checkpoint from before it reads the same
        **({"shift": core.shift.state()} if core.shift.dealer is not None else {}),
    }


def checkpoint_state(core: TableCore) -> dict[str, Any]:
    """What a journal checkpoint holds: the core between rounds and its alarm ledger (the open alarms in the order
    raised, the count raised per kind), which may be older than any round."""
    return {"core": core_state(core), **core.alarms.state()}


def restore_checkpoint(rules: RuleOptions, limits: TableLimits | None, state: Mapping[str, Any], *,
                       zones: Iterable[str] = ()) -> TableCore:
    """The core a `checkpoint_state` described; a `JournalError` when the state is not one."""
    core = restore(rules, limits, state["core"], zones=zones)
    try:
        core.alarms = AlarmLedger.restore(state["alarms"], state["alarm_counts"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise JournalError(f"a checkpoint's alarms are unreadable: {error!r}") from error
    return core


def restore_table(rules: RuleOptions, limits: TableLimits | None, state: Mapping[str, Any]) -> Table:
    """A game table as `table_state` described it; a `JournalError` when the state is not one."""
    table = Table(rules, limits)
    try:
        shoe_state = state["shoe"]
        shoe = table.shoe
        shoe.shoe_id = str(shoe_state["shoe_id"])
        shoe.loaded = bool(shoe_state["loaded"])
        shoe.counts = [int(count) for count in shoe_state["counts"]]
        shoe.dealt = int(shoe_state["dealt"])
        shoe.burns_left = int(shoe_state["burns_left"])
        shoe.cut_card_reached = bool(shoe_state["cut_card_reached"])
        shoe.rounds = int(shoe_state["rounds"])
        table.rounds_started = int(state["rounds_started"])
        held = state["held"]
        table.held_cards.cards = [(Card.parse(str(code)), str(reason), int(mark))
                                  for code, reason, mark in held["cards"]]
        table.held_cards.loose = int(held["loose"])
    except (KeyError, TypeError, ValueError) as error:
        raise JournalError(f"a checkpoint's table state is unreadable: {error!r}") from error
    if len(shoe.counts) != 52:
        raise JournalError(f"a checkpoint's shoe counts {len(shoe.counts)} cards, not 52")
    return table


def restore(rules: RuleOptions, limits: TableLimits | None, state: Mapping[str, Any], *,
            zones: Iterable[str] = ()) -> TableCore:
    """The core `core_state` described, for a table with these rules, limits and zones."""
    if state.get("version") != STATE_VERSION:
        raise JournalError(f"a checkpoint of state version {state.get('version')!r}; this program reads "
                           f"{STATE_VERSION}")
    core = TableCore(rules, limits, zones=zones)
    core.table = restore_table(rules, limits, state["table"])
    try:
        core.chips.contents = {str(zone): tuple(_zone_chip(chip) for chip in chips)
                               for zone, chips in state["zones"].items()}
        core.chips.reported = {str(zone) for zone in state["reported"]}
        core.chips.unlisted = {str(zone): tuple((str(kind), int(count)) for kind, count in refused)
                               for zone, refused in state.get("unlisted", {}).items()}
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise JournalError(f"a checkpoint's zones are unreadable: {error!r}") from error
    try:
        core.seats = Seating.restore(state.get("seats", {}))
        core.seat_changes = SeatChanges.restore(state.get("seat_changes", {}))
    except (TypeError, ValueError, AttributeError) as error:
        raise JournalError(f"a checkpoint's seats are unreadable: {error!r}") from error
    try:
        mark = state.get("shoe_mark")
        core.shoe_mark = None if mark is None else (int(mark[0]), int(mark[1]))
    except (TypeError, ValueError, IndexError) as error:
        raise JournalError(f"a checkpoint's shoe mark is unreadable: {error!r}") from error
    try:
        core.shift = Shift.restore(state.get("shift", {}))
    except (TypeError, ValueError, AttributeError) as error:
        raise JournalError(f"a checkpoint's shift is unreadable: {error!r}") from error
    return core


def _chip(chip: ZoneChip) -> dict[str, Any]:
    """A chip as its `ZoneChanged` row holds it (core_to_dict): the refusal's fields only for a refused chip, so
    the state is the one a replay of the rows makes."""
    if not chip.refused:
        return {"uid": chip.uid, "cents": chip.cents}
    return {"uid": chip.uid, "cents": chip.cents, "refused": chip.refused, "detail": chip.detail,
            "registry_cents": chip.registry_cents, "tag_cents": chip.tag_cents}


def _zone_chip(chip: Mapping[str, Any]) -> ZoneChip:
    return ZoneChip(uid=str(chip["uid"]), cents=int(chip["cents"]), refused=str(chip.get("refused", "")),
                    detail=str(chip.get("detail", "")), registry_cents=chip.get("registry_cents"),
                    tag_cents=chip.get("tag_cents"))
