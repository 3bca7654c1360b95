"""The journal's rows as the table writes and reads them: frozen dataclasses, and their one codec.

Every row the table writes is built here and every row it reads back is decoded here: the writer (the
controller's step, the alarm ledger's `AlarmStep`, the journal outage), the fold (core/record.py), recall
and the display's alarms all go through `to_json` / `row_from_json`. A row is never changed once built: a
count on an open alarm, the id an alarm of an outage gets once written, the `origin` of a step are new
values (`dataclasses.replace`), not edits of a dict someone else holds.

| kind | value | what reads it |
|---|---|---|
| `input` | `InputRow`: the core's input, its `source`, the device message it was (`origin`) | the fold |
| `alarm` | `AlarmRaised`: an alarm raised, its id the row's seq | the fold (the alarm ledger) |
| `alarm_updated` | `AlarmUpdated`: one more count on an open alarm of a storm kind | the fold (the alarm ledger) |
| `alarm_cleared` | `AlarmCleared`: an alarm taken off the banner, and by whom | the fold (the alarm ledger) |
| `terms` | `TermsRow`: the table's terms (core/terms.py), what the rows mean | every reader's constructor, the fold |
| `event`, `round`, `status` | `NoteRow`: the body as written (a read-only mapping) | the feed, recall; no fold |

The JSON of each is the journal's as it always was (docs/journal.md "Rows"): the bytes of a row written
through this codec are the bytes the table wrote before it (tests/table_runtime/core/test_journal_rows.py
encodes, decodes and encodes again every row of a played journal). A kind this program does not know is an
`UnknownRowError`, never skipped. Pure: no I/O, no clock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Final

from table_runtime.core.inputs import CoreInput, core_input_from_dict, core_to_dict
from table_runtime.core.row_kinds import DERIVED_KINDS, RowKind
from table_runtime.core.terms import TableTerms
from table_runtime.errors import JournalError
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import SCHEMA_VERSION

ROW_KINDS: Final = frozenset(RowKind)

Origin = tuple[tuple[str, Any], ...]  # the device message a step was (runtime/shoe_marks.py): name -> value
Amounts = tuple[tuple[str, int], ...]  # an alarm's money by name, in cents, in the order the alarm gave them


class UnknownRowError(JournalError, ValueError):
    """A journal row of a kind this program does not know."""

    def __init__(self, seq: int, kind: str) -> None:
        super().__init__(f"row {seq} is of kind {kind!r}, which this program does not know "
                         f"(it knows {', '.join(sorted(ROW_KINDS))}): a newer program wrote it?")
        self.seq = seq
        self.kind = kind


def origin_of(origin: Mapping[str, Any]) -> Origin:
    """An `origin` as a row holds it: its names in order (as the journal's JSON has them)."""
    return tuple(sorted(dict(origin).items()))


def _origin(body: Mapping[str, Any]) -> Origin | None:
    origin = body.get("origin")
    return None if origin is None else origin_of(origin)


def _amounts(value: Any) -> Amounts:
    return tuple((str(name), cents) for name, cents in dict(value).items())


def _with_origin(body: dict[str, Any], origin: Origin | None) -> dict[str, Any]:
    if origin is not None:
        body["origin"] = dict(origin)
    return body


@dataclass(frozen=True, slots=True, kw_only=True)
class InputRow:
    """An `input` row: what reached the table core (`item`), from where (`source`: the shoe, the chips, the dealer
    ...), and which device message it was (`origin`, on the last input of a shoe's step); `employee`: who it is by
    (the staff registry's id: the dealer on shift, the supervisor for his own action, core/shift.py; None in a row
    written before anyone logged in, and in every row of an older journal)."""

    row_kind: ClassVar[RowKind] = RowKind.INPUT
    item: CoreInput
    source: str | None = None
    origin: Origin | None = None
    employee: str | None = None

    def to_json(self) -> dict[str, Any]:
        body = core_to_dict(self.item)
        if self.source is not None:
            body["source"] = self.source
        if self.employee is not None:
            body["employee"] = self.employee
        return _with_origin(body, self.origin)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> InputRow:
        source, employee = body.get("source"), body.get("employee")
        return cls(item=core_input_from_dict(dict(body)), source=None if source is None else str(source),
                   origin=_origin(body), employee=None if employee is None else str(employee))


@dataclass(frozen=True, slots=True, kw_only=True)
class AlarmRaised:
    """An `alarm` row, and an open alarm as the alarm ledger holds it: its id is the row's seq (a provisional,
    negative one while a journal outage holds it), the round it belongs to (0: between rounds), and, for a storm
    kind, its count, last message and amounts so far. `reason`: a refused command's code (game/refusals.py)."""

    row_kind: ClassVar[RowKind] = RowKind.ALARM
    id: int
    seq: int
    kind: str
    message: str
    rule: str
    box: int | None = None
    amounts: Amounts = ()
    round: int = 0
    acknowledged: bool = False
    count: int = 1
    reason: str = ""
    origin: Origin | None = None
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def of(cls, alarm: Alarm, seq: int, number: int) -> AlarmRaised:
        """`alarm` raised at row `seq` in round `number` (0: between rounds)."""
        return AlarmRaised(id=seq, seq=seq, kind=str(alarm.kind), message=alarm.message, rule=alarm.rule,
                           box=alarm.box, amounts=tuple(alarm.amounts), round=number, count=alarm.count,
                           reason=str(alarm.reason))

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": "Alarm", "schema_version": self.schema_version, "id": self.id, "seq": self.seq, "kind": self.kind,
            "message": self.message, "rule": self.rule, "box": self.box, "amounts": dict(self.amounts),
            "round": self.round, "acknowledged": self.acknowledged, "count": self.count}
        if self.reason:
            body["reason"] = self.reason
        return _with_origin(body, self.origin)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> AlarmRaised:
        box = body.get("box")
        return AlarmRaised(
            id=int(body["id"]), seq=int(body["seq"]), kind=str(body["kind"]), message=str(body["message"]),
            rule=str(body.get("rule", "")), box=None if box is None else int(box),
            amounts=_amounts(body.get("amounts", {})), round=int(body.get("round") or 0),
            acknowledged=bool(body.get("acknowledged", False)), count=int(body.get("count", 1)),
            reason=str(body.get("reason", "")), origin=_origin(body),
            schema_version=int(body.get("schema_version", SCHEMA_VERSION)))

    def counted(self, update: AlarmUpdated) -> AlarmRaised:
        """This open alarm after `update`: its count, last message and amounts (and reason, if it gives one)."""
        return dataclasses.replace(self, count=update.count, message=update.message, amounts=update.amounts,
                                   reason=update.reason or self.reason)

    def recorded(self) -> dict[str, Any]:
        """The alarm as its round's `RoundRecord` lists it (its count if over 1)."""
        record: dict[str, Any] = {"id": self.id, "kind": self.kind, "box": self.box, "message": self.message,
                                  "rule": self.rule, "amounts": dict(self.amounts)}
        if self.count > 1:
            record["count"] = self.count
        return record


@dataclass(frozen=True, slots=True, kw_only=True)
class AlarmUpdated:
    """An `alarm_updated` row: the open alarm `id` (of a storm kind) counts `count` now, with the last message and
    amounts (and a refused command's reason). `seq` is the row's own, 0 until it is written."""

    row_kind: ClassVar[RowKind] = RowKind.ALARM_UPDATED
    id: int
    kind: str
    box: int | None
    count: int
    message: str
    amounts: Amounts = ()
    reason: str = ""
    seq: int = 0
    origin: Origin | None = None
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def of(cls, open_alarm: AlarmRaised, alarm: Alarm, count: int, *, before: AlarmUpdated | None = None
           ) -> AlarmUpdated:
        """`alarm` counting on `open_alarm` (of its storm), whose count was `count`; `before`: the step's count on
        it so far (whose reason stays unless this alarm gives one)."""
        reason = str(alarm.reason) or ("" if before is None else before.reason)
        return AlarmUpdated(id=open_alarm.id, kind=open_alarm.kind, box=open_alarm.box, count=count + alarm.count,
                            message=alarm.message, amounts=tuple(alarm.amounts), reason=reason,
                            seq=0 if before is None else before.seq)

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": "AlarmUpdated", "schema_version": self.schema_version, "id": self.id, "kind": self.kind,
            "box": self.box, "count": self.count, "message": self.message, "amounts": dict(self.amounts),
            "seq": self.seq}
        if self.reason:
            body["reason"] = self.reason
        return _with_origin(body, self.origin)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> AlarmUpdated:
        box = body.get("box")
        return AlarmUpdated(
            id=int(body["id"]), kind=str(body["kind"]), box=None if box is None else int(box),
            count=int(body["count"]), message=str(body["message"]), amounts=_amounts(body["amounts"]),
            reason=str(body.get("reason", "")), seq=int(body.get("seq", 0)), origin=_origin(body),
            schema_version=int(body.get("schema_version", SCHEMA_VERSION)))


@dataclass(frozen=True, slots=True, kw_only=True)
class AlarmCleared:
    """An `alarm_cleared` row: alarm `id` leaves the banner, cleared `by` the dealer, the supervisor or the
    journal (the end of an outage); `employee`: which one (the staff registry's id), where the table knows."""

    row_kind: ClassVar[RowKind] = RowKind.ALARM_CLEARED
    id: int
    by: str
    schema_version: int = SCHEMA_VERSION
    employee: str | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"type": "AlarmCleared", "schema_version": self.schema_version, "id": self.id,
                                "by": self.by}
        if self.employee is not None:
            body["employee"] = self.employee
        return body

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> AlarmCleared:
        employee = body.get("employee")
        return cls(id=int(body["id"]), by=str(body.get("by", "")),
                   schema_version=int(body.get("schema_version", SCHEMA_VERSION)),
                   employee=None if employee is None else str(employee))


@dataclass(frozen=True, slots=True, kw_only=True)
class TermsRow:
    """A `terms` row: the terms the rows after it (and, in a journal written before terms rows, the rows before
    its first one) were written under (core/terms.py)."""

    row_kind: ClassVar[RowKind] = RowKind.TERMS
    terms: TableTerms
    by: str | None = None  # who changed the configuration, when the start was told (`run --changed-by`)

    def to_json(self) -> dict[str, Any]:
        return {**self.terms.to_json(), **({"by": self.by} if self.by is not None else {})}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> TermsRow:
        by = body.get("by")
        return cls(terms=TableTerms.from_json(body), by=None if by is None else str(by))


@dataclass(frozen=True, slots=True)
class NoteRow:
    """An `event`, `round`, `status` or `rating` row: what follows from the inputs, or notes the table's life. No
    fold reads it; it is kept as written, read-only (the feed and recall read its fields)."""

    row_kind: RowKind
    body: Mapping[str, Any]

    @classmethod
    def of(cls, kind: RowKind, body: Mapping[str, Any]) -> NoteRow:
        if kind not in DERIVED_KINDS:
            raise ValueError(f"a {kind} row is not a note")
        return cls(kind, MappingProxyType(dict(body)))

    def to_json(self) -> dict[str, Any]:
        return dict(self.body)

    @classmethod
    def from_json(cls, kind: RowKind, body: Mapping[str, Any]) -> NoteRow:
        return cls.of(kind, body)


StateRow = InputRow | AlarmRaised | AlarmUpdated | AlarmCleared | TermsRow
"""The rows that change the table's state (core/record.py folds them)."""
JournalRow = StateRow | NoteRow

_STATE_ROWS: Final[dict[str, type[InputRow] | type[AlarmRaised] | type[AlarmUpdated] | type[AlarmCleared]
                        | type[TermsRow]]] = {
    RowKind.INPUT: InputRow, RowKind.ALARM: AlarmRaised, RowKind.ALARM_UPDATED: AlarmUpdated,
    RowKind.ALARM_CLEARED: AlarmCleared, RowKind.TERMS: TermsRow}


def row_from_json(seq: int, kind: str, body: Mapping[str, Any]) -> JournalRow:
    """The row `seq` of `kind` with this body; `UnknownRowError` for a kind this program does not know, and
    KeyError, TypeError or ValueError (a `CodecError`) for a body that is not one of its kind."""
    state_row = _STATE_ROWS.get(kind)
    if state_row is not None:
        return state_row.from_json(body)
    if kind in DERIVED_KINDS:
        return NoteRow.from_json(RowKind(kind), body)
    raise UnknownRowError(seq, kind)


def row_to_json(row: JournalRow) -> tuple[RowKind, dict[str, Any]]:
    """The kind and the JSON body the journal stores for `row`."""
    return row.row_kind, row.to_json()


def rows_to_json(rows: Sequence[JournalRow]) -> list[tuple[RowKind, dict[str, Any]]]:
    """The (kind, body) pairs of `rows`, in order, as `Journal.append_many` takes them."""
    return [(row.row_kind, row.to_json()) for row in rows]


def with_step_origin(rows: Sequence[JournalRow], origin: Mapping[str, Any]) -> list[JournalRow]:
    """The rows of one step with `origin`, the device message the step was (runtime/shoe_link.py), on its last
    input (a card after the bet lock it brought), else on its last alarm row; unchanged if it has neither."""
    marked = next((index for index in reversed(range(len(rows))) if isinstance(rows[index], InputRow)), None)
    if marked is None:
        marked = next((index for index in reversed(range(len(rows)))
                       if isinstance(rows[index], (AlarmRaised, AlarmUpdated))), None)
    out = list(rows)
    if marked is not None:
        row = out[marked]
        assert isinstance(row, (InputRow, AlarmRaised, AlarmUpdated))
        out[marked] = dataclasses.replace(row, origin=origin_of(origin))
    return out
