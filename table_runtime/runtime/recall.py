"""Game recall: the last rounds, step by step, rebuilt from the journal alone.

Each step is one journaled input with a line of text and the table snapshot
after it, so the display can step through a round as the dealer saw it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table_runtime.core.buy_ins import BuyIn, buy_in_text
from table_runtime.core.inputs import CHIP_INPUT_TYPES
from table_runtime.core.journal_rows import AlarmRaised, InputRow, NoteRow, row_from_json
from table_runtime.core.record import fold
from table_runtime.core.row_kinds import DERIVED_KINDS, RowKind
from table_runtime.game.codec import to_dict
from table_runtime.game.events import (
    ActionUndone,
    Alarm,
    CardAssigned,
    CardBurned,
    CardHeld,
    CardsDiscarded,
    Event,
    HandDoubled,
    HandSplit,
    HandStood,
    HyperFieldSettled,
    InsuranceTaken,
    RoundSettled,
    RoundStarted,
    RoundVoided,
)
from table_runtime.game.inputs import SCHEMA_VERSION, BetsLocked, Input
from table_runtime.game.phases import CLOSED, ENDED
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.snapshot import payout_dict, table_snapshot
from table_runtime.game.table import Table
from table_runtime.journal import Journal, JournalEntry
from table_runtime.runtime.checkpointing import resume


def euros(cents: int) -> str:
    return f"{cents / 100:.2f} €"


def describe(item: Input | BuyIn, events: list[Event]) -> str:
    """One line for a step: what came in and what it did."""
    if isinstance(item, BuyIn):
        return buy_in_text(item)
    parts: list[str] = []
    if isinstance(item, BetsLocked):
        parts.append("Bets locked: " + ", ".join(
            f"box{bet.box} {euros(bet.seated_cents)}" + (f" + behind {euros(bet.total_cents - bet.seated_cents)}"
                                                        if bet.behind else "")
            for bet in item.bets))
    for event in events:
        if isinstance(event, CardAssigned):
            parts.append(f"card {event.card} to {event.target}")
        elif isinstance(event, CardBurned):
            parts.append(f"card {event.card} burned")
        elif isinstance(event, CardHeld):
            parts.append(f"card {event.card} held ({event.reason})")
        elif isinstance(event, CardsDiscarded):
            parts.append("discarded " + " ".join(str(card) for card in event.cards))
        elif isinstance(event, HandStood):
            parts.append(f"box{event.box}.hand{event.hand} stands")
        elif isinstance(event, HandDoubled):
            parts.append(f"box{event.box}.hand{event.hand} doubles (+{euros(event.added_cents)})")
        elif isinstance(event, HandSplit):
            parts.append(f"box{event.box}.hand{event.hand} splits (+{euros(event.added_cents)})")
        elif isinstance(event, InsuranceTaken):
            parts.append(f"box{event.box} insured {euros(event.cents)}")
        elif isinstance(event, ActionUndone):
            parts.append(f"UNDO {event.action} at {event.target}" + (f" ({event.card})" if event.card else ""))
        elif isinstance(event, RoundSettled):
            parts.append(f"settled: bank {event.bank_total}" + (" blackjack" if event.bank_blackjack else ""))
        elif isinstance(event, RoundVoided):
            parts.append(f"round voided by {event.by}: {event.reason}")
        elif isinstance(event, HyperFieldSettled):  # 55-4 6°
            parts.append(f"hyper black jack: the bank's result {event.result}")
        elif isinstance(event, Alarm):
            parts.append(f"ALARM {event.kind}: {event.message}")
    return "; ".join(parts) or type(item).__name__


def recall_rounds(journal: Journal, rules: RuleOptions, limits: TableLimits, *, last: int,
                  table_id: str = "", zones: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The last `last` rounds (newest last), each step by step: replayed from the newest checkpoint before the
    first of them (checked: its seal, its row, the chain from it to the head), else from the first row."""
    starts = journal.last_round_starts(last)
    if not starts:
        return []
    wanted = {number for _, number in starts}
    checkpoint = journal.checkpoint_before(starts[0][0])
    after = 0 if checkpoint is None else checkpoint.seq
    records: dict[int, dict[str, Any]] = {}
    alarms: dict[int, list[dict[str, Any]]] = {}
    for entry in journal.entries(after, kinds=(RowKind.ROUND, RowKind.ALARM)):
        row = row_from_json(entry.seq, entry.kind, entry.body)  # the journal's one codec
        if isinstance(row, AlarmRaised):
            if row.round in wanted:
                alarms.setdefault(row.round, []).append(row.to_json())
        elif isinstance(row, NoteRow) and int(row.body.get("round") or 0) in wanted:
            records[int(row.body["round"])] = dict(row.body)
    rounds: dict[int, dict[str, Any]] = {}
    before_first: list[dict[str, Any]] = []  # buy-ins before any round: steps of the first round
    core = resume(checkpoint, rules, limits, zones=zones).core
    table = core.table
    for entry in journal.entries(after, exclude=DERIVED_KINDS):  # the one fold; it makes the events again
        row = row_from_json(entry.seq, entry.kind, entry.body)
        events = fold(core, entry.seq, row)
        if not isinstance(row, InputRow) or type(row.item).__name__ in CHIP_INPUT_TYPES \
                or not isinstance(row.item, Input | BuyIn):
            continue  # the alarms, the chips on the zones, whose the chips on the hyper field are, who sits where,
            # the player cards read, a pause, a move, a player behind (core/seating.py, core/player_cards.py,
            # core/seat_changes.py; a restart folds them all): not steps of a round
        item = row.item
        assert isinstance(item, Input | BuyIn)
        round_ = table.round
        number = round_.number if round_ is not None else 0
        if isinstance(item, BuyIn) and not table.round_in_play:
            # A buy-in between rounds is a step after the round before it (after none: of the first round).
            current = rounds.get(number)
            alarms_before = [] if current is None else current["alarms"]
            step = _step(entry, item, events, table, table_id, alarms_before)
            if current is not None:
                current["steps"].append(step)
            elif round_ is None:
                before_first.append(step)
            continue
        if any(isinstance(event, RoundStarted) for event in events) or (number in wanted and number in rounds):
            if number not in wanted:
                continue
            current = rounds.setdefault(number, {
                "round": number, "table_id": table_id, "shoe_id": table.shoe.shoe_id, "started_seq": entry.seq,
                "closed_seq": None, "result": "in_progress", "steps": before_first, "payouts": [],
                "alarms": alarms.get(number, [])})
            before_first = []
            if current["result"] != "in_progress":
                continue
            current["steps"].append(_step(entry, item, events, table, table_id, current["alarms"]))
            assert round_ is not None
            if round_.phase in ENDED:
                record = records.get(number, {})
                current["result"] = "settled" if round_.phase is CLOSED else "voided"
                current["closed_seq"] = record.get("closed_seq", entry.seq)
                current["payouts"] = [payout_dict(p) for p in round_.payouts]
                voided = [event for event in events if isinstance(event, RoundVoided)]
                if voided:  # who voided the round, and why
                    current["void"] = {"by": voided[0].by, "reason": voided[0].reason}
    return [rounds[number] for number in sorted(rounds)]


def _step(entry: JournalEntry, item: Input | BuyIn, events: list[Event], table: Table, table_id: str,
          alarms: list[dict[str, Any]]) -> dict[str, Any]:
    """One recalled step: the input, its line, its events and the table snapshot after it."""
    snapshot = table_snapshot(table)
    snapshot["shoe"]["online"] = True
    # The input's own rows follow it in its transaction: its events, alarms among them.
    last_seq = entry.seq + len(events)
    snapshot.update({  # the runtime's part of the snapshot contract, as it stood at this step
        "schema_version": SCHEMA_VERSION, "table_id": table_id, "seq": entry.seq, "recovered": False,
        "devices": {}, "alarms": [alarm for alarm in alarms if int(alarm["seq"]) <= last_seq]})
    return {"seq": entry.seq, "ts": entry.ts, "type": entry.body.get("type"),
            "source": entry.body.get("source", ""), "text": describe(item, events),
            "events": [to_dict(event) for event in events],  # the display's own words
            "snapshot": snapshot}
