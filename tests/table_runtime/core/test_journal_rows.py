"""The journal's rows as typed values (core/journal_rows.py): one codec, the journal's bytes unchanged.

A deterministic play writes the same bytes (the chain's head, the checkpoints' seals) as the table wrote before
its rows were typed. Every row of journals written by real scenarios through the bench (the real runtime, the
simulated shoe on a pty, the chip readers behind pyusb), then by the real controller on the same journal (a storm
counted, an alarm cleared), is decoded and encoded again: the canonical text is the stored text, byte for byte,
for every kind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.bench.cli import LIBRARY
from simulators.bench.runner import run_scenario
from simulators.bench.scenario import load_scenario
from simulators.fast_table import FastTable
from table_runtime.core.alarm_ledger import AlarmLedger
from table_runtime.core.journal_rows import (
    AlarmCleared,
    AlarmRaised,
    AlarmUpdated,
    InputRow,
    NoteRow,
    TermsRow,
    UnknownRowError,
    origin_of,
    row_from_json,
    row_to_json,
)
from table_runtime.core.record import fold_row
from table_runtime.core.row_kinds import RowKind
from table_runtime.core.table_core import TableCore
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import RuleOptions, TableLimits, profile
from table_runtime.journal import Journal, encode_body, journal_path
from table_runtime.release.verification import verify_installation
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.journal_audit import replay_check
from table_runtime.runtime.rating_watch import journal_ratings
from table_runtime.runtime.terms import journal_terms
from tests.release.installation import signed_installation

SCENARIOS = ("43-door-opened-mid-round", "51-counterfeit-chip", "06-insurance-wrong-amount-refused")
TYPED = {RowKind.INPUT: InputRow, RowKind.ALARM: AlarmRaised, RowKind.ALARM_UPDATED: AlarmUpdated,
         RowKind.ALARM_CLEARED: AlarmCleared, RowKind.EVENT: NoteRow, RowKind.ROUND: NoteRow,
         RowKind.STATUS: NoteRow, RowKind.TERMS: TermsRow, RowKind.RATING: NoteRow,
         RowKind.VERIFICATION: NoteRow, RowKind.METERS: NoteRow}


async def _played(name: str, work_dir: Path) -> Path:
    scenario = load_scenario(LIBRARY / f"{name}.yaml")
    result = await run_scenario(scenario, work_dir=work_dir)
    assert result.status == "passed", (name, result.error, result.differences)
    path = journal_path(work_dir)
    with Journal.open(path) as journal:  # the same table again: a storm of refused presses, then cleared
        terms = journal_terms(journal)
        assert terms is not None
        # A day later: the start journals the meters of the day the scenario played (a `meters` row)
        controller = TableController(table_id=terms.table_id, rules=terms.rules, limits=terms.limits, journal=journal,
                                     clock=lambda: time.time() + 86400, zones=terms.zones)
        for _ in range(3):
            controller.press("SPLIT", {}, role="dealer", source="panel", refusal_alarm=True)
        for alarm_id in controller.alarms.active_of_kind(AlarmKind.COMMAND_REFUSED):
            assert controller.acknowledge(alarm_id, by="dealer")
        prefix, key = signed_installation(work_dir / "release")  # a check of the program, as its watch journals it
        controller.program_verified({"type": "ProgramVerified", "by": "start",
                                     **verify_installation(prefix, key, b"seed").to_json()})
        # The rated sessions' messages as the table's rating fold journals them.
        journal_ratings(journal)
    return path


@pytest.mark.timeout(240)
@pytest.mark.slow
async def test_every_row_of_played_journals_encodes_decodes_and_encodes_to_its_stored_bytes(tmp_path: Path) -> None:
    seen: dict[str, int] = {}
    origins = 0
    for name in SCENARIOS:
        path = await _played(name, tmp_path / name)
        with Journal.open(path) as journal:
            for entry in journal.entries():
                stored = journal._db().execute("SELECT body FROM entries WHERE seq = ?", (entry.seq,)).fetchone()[0]
                row = row_from_json(entry.seq, entry.kind, entry.body)
                assert type(row) is TYPED[RowKind(entry.kind)]
                kind, body = row_to_json(row)
                assert kind == entry.kind
                assert encode_body(body) == stored, (entry.seq, entry.kind)
                again = row_from_json(entry.seq, kind, body)
                assert again == row  # the values are the same too, not only the text
                seen[entry.kind] = seen.get(entry.kind, 0) + 1
                origins += "origin" in entry.body
    assert set(seen) == set(RowKind), seen  # every kind was there to be checked
    assert origins > 0  # and the shoe's `origin` on the rows of its steps


def test_a_row_is_frozen_and_a_count_is_a_new_value() -> None:
    raised = AlarmRaised(id=7, seq=7, kind=AlarmKind.COMMAND_REFUSED, message="no", rule="r", reason="play_stopped")
    with pytest.raises(dataclasses.FrozenInstanceError):
        raised.count = 2  # type: ignore[misc]
    update = AlarmUpdated(id=7, kind=raised.kind, box=None, count=3, message="no again", seq=9)
    counted = raised.counted(update)
    assert (raised.count, counted.count, counted.message, counted.reason) == (1, 3, "no again", "play_stopped")
    ledger = AlarmLedger()
    ledger.raised(raised)
    ledger.updated(update)
    assert raised.count == 1 and ledger.get(7) == counted  # the row folded is not changed by the fold


def test_a_kind_this_program_does_not_know_is_an_error_in_the_codec_and_in_the_fold() -> None:
    with pytest.raises(UnknownRowError) as unknown:
        row_from_json(12, "bet_placed", {"type": "BetPlaced"})
    assert (unknown.value.seq, unknown.value.kind) == (12, "bet_placed")
    with pytest.raises(UnknownRowError):
        fold_row(TableCore(RuleOptions(), TableLimits()), 12, "bet_placed", {})


# What the table wrote before its rows were typed, for this play: the head of the chain (every row's kind, time and
# body bytes) and the seals of its checkpoints (their states' bytes). A change of a row's bytes changes these. Since
# the table's terms are its journal's first row (docs/journal.md "The terms row"), every row after it is one seq on:
# both were taken again then (the rows and checkpoints alike, nothing else of their bytes changed). Taken again when the
# alarms' rules came to cite the public text (game/citations.py): the same rows, only their `rule` and the citations
# ending the refusals' messages changed, checked row by row against the play before. The checkpoints' seals were taken
# again when the lifetime meters joined the state they seal (core/meters.py; the rows unchanged).
WRITTEN_BEFORE_HEAD = "61e859d44ee01951ff7f1bdf141bae57b619f418c531d868cd504d811a632c11"
WRITTEN_BEFORE_SEALS = "ae40c74ffb9c2bc71c5fffe4ab608dbce05a85bef16db8e3528b6df919085db2"


def test_the_table_writes_the_same_bytes_as_before_its_rows_were_typed(tmp_path: Path) -> None:
    ticks = itertools.count()
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                     clock=lambda: 1_700_000_000.0 + next(ticks) * 0.25, checkpoint_rows=40)
        FastTable(controller, seed=7, error_rate=0.3).run(25)  # misdeals, refusals, chip and payout alarms
        for _ in range(3):  # a storm of refused presses: one alarm, counted on
            controller.press("SPLIT", {}, role="dealer", source="panel", refusal_alarm=True)
        faults = [Alarm(kind=AlarmKind.ANTENNA_FAULT, message=message, rule="r", box=2, amounts=((name, cents),))
                  for message, name, cents in (("a", "x", 1), ("b", "y", 2))]
        controller.raise_alarms(faults)  # a device storm in one step
        for alarm in controller.alarms.open_alarms:
            controller.acknowledge(alarm.id, by="supervisor")
        kinds = {str(kind) for (kind,) in journal._db().execute("SELECT DISTINCT kind FROM entries")}
        head = journal._db().execute("SELECT hash FROM head WHERE id = 1").fetchone()[0]
        seals = "".join(f"{seq} {seal}\n" for seq, seal in journal._db().execute(
            "SELECT seq, seal FROM checkpoints ORDER BY seq"))
    # `rating` rows are the rating watch's, `verification` rows the program watch's: neither is run here; no séance
    # closes and no gaming day ends in this play (no `meters` row)
    assert kinds == set(RowKind) - {RowKind.RATING, RowKind.VERIFICATION, RowKind.METERS}
    assert head == WRITTEN_BEFORE_HEAD
    assert hashlib.sha256(seals.encode()).hexdigest() == WRITTEN_BEFORE_SEALS


def test_an_open_alarm_journaled_with_its_device_origin_does_not_make_a_checkpoint_look_forged(tmp_path: Path) -> None:
    # A shoe event's alarm row carries the event's `origin` (runtime/shoe_link.py): where the row came from, not the
    # alarm's state. The live ledger and a replay of the rows must hold the same alarm, or the audit after the next
    # start calls an honest checkpoint forged.
    ticks = itertools.count()
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                     clock=lambda: 1_700_000_000.0 + next(ticks) * 0.25, checkpoint_rows=1)
        table = FastTable(controller, seed=1, error_rate=0.0)
        table.run(1)
        jam = Alarm(kind=AlarmKind.SHOE_JAM, message="the shoe jammed", rule=citations.SHOE_INTEGRITY)
        controller.submit_all([jam], origin={"device": "shoe", "boot_id": 3, "sequence": 41})
        table.run(2)  # its bet lock seals a checkpoint while the jam is open (the dealer clears it at settlement)
        sealed = journal.checkpoints_until(journal.last_seq)
        assert any(alarm["kind"] == AlarmKind.SHOE_JAM for alarm in sealed[-1].state["alarms"])
        previous = None
        for checkpoint in sealed:
            assert replay_check(controller, previous, checkpoint) is None
            previous = checkpoint


# The values as the journal's canonical JSON gives them back: amounts and origin in the order of their names.
_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
_amounts = st.lists(st.tuples(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), st.integers(-10**9, 10**9)),
                    max_size=4, unique_by=lambda pair: pair[0]).map(lambda pairs: tuple(sorted(pairs)))
_origin = st.none() | st.fixed_dictionaries({"device": st.just("shoe"), "boot_id": st.integers(0, 2**32),
                                             "sequence": st.integers(0, 2**32)}).map(origin_of)
_alarm_kind = st.sampled_from(sorted(AlarmKind))
_box = st.none() | st.integers(1, 7)


@given(st.builds(AlarmRaised, id=st.integers(-50, 10**9), seq=st.integers(-50, 10**9), kind=_alarm_kind,
                 message=_text, rule=_text, box=_box, amounts=_amounts, round=st.integers(0, 10**6),
                 count=st.integers(1, 10**6), reason=st.sampled_from(["", *sorted(RefusalReason)]), origin=_origin))
@settings(max_examples=200)
def test_an_alarm_row_decodes_to_itself_from_its_canonical_text(row: AlarmRaised) -> None:
    kind, body = row_to_json(row)
    text = encode_body(body)
    again = row_from_json(row.seq, kind, json.loads(text))
    assert again == row and encode_body(again.to_json()) == text


@given(st.builds(AlarmUpdated, id=st.integers(1, 10**9), kind=_alarm_kind, box=_box, count=st.integers(2, 10**6),
                 message=_text, amounts=_amounts, reason=st.sampled_from(["", *sorted(RefusalReason)]),
                 seq=st.integers(1, 10**9), origin=_origin),
       st.builds(AlarmCleared, id=st.integers(1, 10**9), by=st.sampled_from(["dealer", "supervisor", "journal"])))
@settings(max_examples=200)
def test_a_count_and_a_clearing_decode_to_themselves(update: AlarmUpdated, cleared: AlarmCleared) -> None:
    for row in (update, cleared):
        kind, body = row_to_json(row)
        text = encode_body(body)
        assert row_from_json(1, kind, json.loads(text)) == row
