"""Game recall: the last rounds, step by step, rebuilt from the journal alone.

Each step is one journaled input with a line of text and the table snapshot
after it, so the display can step through a round as the dealer saw it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table_runtime.core.inputs import CHIP_INPUT_TYPES, core_input_from_dict
from table_runtime.core.record import fold_row
from table_runtime.core.row_kinds import DERIVED_KINDS
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
from table_runtime.journal import Journal
from table_runtime.runtime.checkpointing import resume


def euros(cents: int) -> str:
    return f"{cents / 100:.2f} €"


def describe(item: Input, events: list[Event]) -> str:
    """One line for a step: what came in and what it did."""
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
    for entry in journal.entries(after, kinds=("round", "alarm")):
        number = int(entry.body.get("round") or 0)
        if number not in wanted:
            continue
        if entry.kind == "round":
            records[number] = entry.body
        else:
            alarms.setdefault(number, []).append(entry.body)
    rounds: dict[int, dict[str, Any]] = {}
    core = resume(checkpoint, rules, limits, zones=zones).core
    table = core.table
    for entry in journal.entries(after, exclude=DERIVED_KINDS):  # the one fold; it makes the events again
        if entry.kind != "input" or entry.body.get("type") in CHIP_INPUT_TYPES:
            fold_row(core, entry.seq, entry.kind, entry.body)  # the alarms, the chips on the zones: not steps
            continue
        item = core_input_from_dict(entry.body)
        events = core.step(item, entry.seq)
        assert isinstance(item, Input)
        round_ = table.round
        number = round_.number if round_ is not None else 0
        if any(isinstance(event, RoundStarted) for event in events) or (number in wanted and number in rounds):
            if number not in wanted:
                continue
            current = rounds.setdefault(number, {
                "round": number, "table_id": table_id, "shoe_id": table.shoe.shoe_id, "started_seq": entry.seq,
                "closed_seq": None, "result": "in_progress", "steps": [], "payouts": [],
                "alarms": alarms.get(number, [])})
            if current["result"] != "in_progress":
                continue
            snapshot = table_snapshot(table)
            snapshot["shoe"]["online"] = True
            # The input's own rows follow it in its transaction: its events, alarms among them.
            last_seq = entry.seq + len(events)
            snapshot.update({  # the runtime's part of the snapshot contract, as it stood at this step
                "schema_version": SCHEMA_VERSION, "table_id": table_id, "seq": entry.seq, "recovered": False,
                "devices": {}, "alarms": [alarm for alarm in current["alarms"] if int(alarm["seq"]) <= last_seq]})
            current["steps"].append({"seq": entry.seq, "ts": entry.ts, "type": entry.body.get("type"),
                                     "source": entry.body.get("source", ""), "text": describe(item, events),
                                     "events": [to_dict(event) for event in events],  # the display's own words
                                     "snapshot": snapshot})
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
