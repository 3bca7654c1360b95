"""Game recall: the last rounds, step by step, rebuilt from the journal alone.

Each step is one journaled input with a line of text and the table snapshot
after it, so the display can step through a round as the dealer saw it. The
rounds are one fold of the journal (core/record.py) from the newest checkpoint
before them, into the table its terms row describes; what the table decided
when a round closed is read from the round's journaled record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from table_runtime.core.buy_ins import BuyIn, buy_in_text
from table_runtime.core.inputs import CHIP_INPUT_TYPES
from table_runtime.core.journal_rows import AlarmRaised, AlarmUpdated, InputRow, NoteRow, row_from_json
from table_runtime.core.record import fold
from table_runtime.core.row_kinds import RowKind
from table_runtime.core.table_core import TableCore
from table_runtime.core.terms import TableTerms
from table_runtime.errors import JournalError
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
from table_runtime.game.phases import CLOSED
from table_runtime.game.snapshot import table_snapshot
from table_runtime.game.table import Table
from table_runtime.journal import Journal, JournalEntry
from table_runtime.runtime.terms import journal_terms, table_core


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


def recall_rounds(journal: Journal, *, last: int, default_terms: TableTerms | None = None) -> list[dict[str, Any]]:
    """The last `last` rounds (newest last), each step by step, under the journal's own terms (its `terms` row;
    `default_terms`: those of a journal that holds none, written before terms rows by a table not yet started on
    this version).

    One pass of the one fold from the newest checkpoint before the first of them (checked: its seal, its row, the
    chain from it to the head), else from the first row: the steps are the inputs folded there, each with the
    table as it stood after it; the round's alarms are the fold's alarm ledger (raised, counted on by
    `alarm_updated`, as the table held them), and what the table decided when the round closed (its result,
    closed row, payouts) is read from its journaled `round` record."""
    starts = journal.last_round_starts(last)
    if not starts:
        return []
    wanted = {number for _, number in starts}
    checkpoint = journal.checkpoint_before(starts[0][0])
    after = 0 if checkpoint is None else checkpoint.seq
    terms = journal_terms(journal, after) or default_terms
    if terms is None:
        raise JournalError(f"{journal.path}: the journal does not say which terms it was played under")
    core = table_core(journal, checkpoint, default=default_terms)
    table, table_id = core.table, terms.table_id
    rounds: dict[int, dict[str, Any]] = {}
    before_first: list[dict[str, Any]] = []  # buy-ins before any round: steps of the first round
    recording: dict[str, Any] | None = None  # the round whose alarms the last steps see (in play, or just closed)
    pending: dict[str, Any] | None = None  # the last step, until the rows of its transaction (its alarms) are read

    def settle_pending() -> None:
        """The last step's snapshot lists its round's alarms as the table held them before the next step."""
        nonlocal pending
        if pending is not None and recording is not None:
            pending["snapshot"]["alarms"] = list(recording["alarms"])
        pending = None

    # The one fold; it makes the events again, the journal's one codec reads rows (not the rated sessions' messages).
    for entry in journal.entries(after, exclude=(RowKind.EVENT, RowKind.STATUS, RowKind.RATING)):
        row = row_from_json(entry.seq, entry.kind, entry.body)
        events = fold(core, entry.seq, row)
        if isinstance(row, AlarmRaised | AlarmUpdated) and recording is not None \
                and recording["result"] == "in_progress":  # the round's alarms change with these rows only
            recording["alarms"] = _round_alarms(core, recording["round"])
        if isinstance(row, NoteRow):  # a `round` record: what the table decided when the round closed or was voided
            number = int(row.body.get("round") or 0)
            if number in rounds:
                settle_pending()
                _closed(rounds[number], row.body)
            continue
        if not isinstance(row, InputRow) or type(row.item).__name__ in CHIP_INPUT_TYPES \
                or not isinstance(row.item, Input | BuyIn):
            continue  # the alarms, the terms, the chips on the zones, whose the chips on the hyper field are, who sits
            # where, the player cards read, a pause, a move, a player behind (core/seating.py, core/player_cards.py,
            # core/seat_changes.py; a restart folds them all): not steps of a round
        settle_pending()
        item = row.item
        assert isinstance(item, Input | BuyIn)
        round_ = table.round
        number = round_.number if round_ is not None else 0
        if isinstance(item, BuyIn) and not table.round_in_play:
            # A buy-in between rounds is a step after the round before it (after none: of the first round).
            current = rounds.get(number)
            pending = _step(entry, item, events, table, table_id)
            if current is not None:
                current["steps"].append(pending)
            elif round_ is None:
                before_first.append(pending)
            continue
        if any(isinstance(event, RoundStarted) for event in events) or (number in wanted and number in rounds):
            if number not in wanted:
                recording = None
                continue
            current = rounds.setdefault(number, {
                "round": number, "table_id": table_id, "shoe_id": table.shoe.shoe_id, "started_seq": entry.seq,
                "closed_seq": None, "result": "in_progress", "steps": before_first, "payouts": [],
                "alarms": _round_alarms(core, number)})
            before_first = []
            recording = current
            if current["result"] != "in_progress":
                continue
            pending = _step(entry, item, events, table, table_id)
            current["steps"].append(pending)
            voided = [event for event in events if isinstance(event, RoundVoided)]
            if voided:  # who voided the round, and why
                current["void"] = {"by": voided[0].by, "reason": voided[0].reason}
        else:
            recording = None
    settle_pending()
    return [rounds[number] for number in sorted(rounds)]


def _round_alarms(core: TableCore, number: int) -> list[dict[str, Any]]:
    """Round `number`'s alarms as the fold's ledger holds them: raised in it, counted on (a storm's `count`)."""
    return [alarm.to_json() for alarm in core.alarms.round_alarms if alarm.round == number]


def _closed(recalled: dict[str, Any], record: Mapping[str, Any]) -> None:
    """A recalled round once its `round` record is read: the result, closed row and payouts the table journaled."""
    recalled["result"] = "settled" if record.get("result") == CLOSED else "voided"
    recalled["closed_seq"] = record.get("closed_seq", record.get("seq"))
    recalled["payouts"] = [dict(payout) for payout in record.get("payouts", ())]


def _step(entry: JournalEntry, item: Input | BuyIn, events: list[Event], table: Table, table_id: str
          ) -> dict[str, Any]:
    """One recalled step: the input, its line, its events and the table snapshot after it (its round's alarms are
    set once the rows of its transaction are read)."""
    snapshot = table_snapshot(table)
    snapshot["shoe"]["online"] = True
    snapshot.update({  # the runtime's part of the snapshot contract, as it stood at this step
        "schema_version": SCHEMA_VERSION, "table_id": table_id, "seq": entry.seq, "recovered": False,
        "devices": {}, "alarms": []})
    return {"seq": entry.seq, "ts": entry.ts, "type": entry.body.get("type"),
            "source": entry.body.get("source", ""), "text": describe(item, events),
            **({"employee": entry.body["employee"]} if "employee" in entry.body else {}),  # its author (issue 34)
            "events": [to_dict(event) for event in events],  # the display's own words
            "snapshot": snapshot}


def name_authors(rounds: list[dict[str, Any]], name: Callable[[str], str]) -> list[dict[str, Any]]:
    """The recalled rounds with each step's author named (`name`: employee id -> his name, from the staff registry;
    issue 34): the display and `table-runtime recall --staff` show the name, the journal and the feed keep the id."""
    for round_ in rounds:
        for step in round_["steps"]:
            if "employee" in step:
                step["name"] = name(step["employee"])
    return rounds
