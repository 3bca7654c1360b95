"""Who is on shift at the table: the dealer logged in, his pushes, and the author of every input (issue 34).

A dealer takes the table by badging at the table's card reader or with his own PIN on the display (the shell
checks the credential against the staff registry, table_runtime/staff/); the core is told the outcome as an input:

- `EmployeeLoggedIn(employee, role="dealer", via)`: he is the dealer on shift from this row on;
- `EmployeeLoggedOut(employee, role="dealer", reason)`: he leaves the table (`logout`), or is relieved by the
  next dealer (`push`, a rotation: the dealer out and the next one in, two inputs of one step, `login_inputs`).

Both are journaled like every input: who is on shift after a restart is the fold of the journal, and a checkpoint
seals it (core/core_state.py). Where the table's terms say a staff registry rules the table (`required`, the terms
row's `staff`, core/terms.py) DEAL is refused while no dealer is logged in (`deal_refusal`) and a supervisor's
action must name the supervisor (core/commands.py).

Every input journaled carries its author (core/journal_rows.py `InputRow.employee`): the employee a login or logout
names, the supervisor for his own action, else the dealer on shift (`author`). A journal written before has none, and
replays as it did. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from table_runtime.core.staff_roles import StaffRole
from table_runtime.game.codec import CodecError
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.refusals import Refusal, RefusalReason

LOGGED_IN_TYPE: Final = "EmployeeLoggedIn"
LOGGED_OUT_TYPE: Final = "EmployeeLoggedOut"
SHIFT_INPUT_TYPES: Final = frozenset({LOGGED_IN_TYPE, LOGGED_OUT_TYPE})
Via = Literal["badge", "pin"]
OutReason = Literal["logout", "push"]
VIAS: Final = ("badge", "pin")
OUT_REASONS: Final = ("logout", "push")


@dataclass(frozen=True, slots=True, kw_only=True)
class EmployeeLoggedIn:
    """`employee` (the staff registry's id) takes the table as its dealer, by his badge or his PIN."""

    employee: str
    via: Via
    role: StaffRole = StaffRole.DEALER


@dataclass(frozen=True, slots=True, kw_only=True)
class EmployeeLoggedOut:
    """`employee` leaves the table: logged out, or pushed by the next dealer (a rotation)."""

    employee: str
    reason: OutReason = "logout"
    role: StaffRole = StaffRole.DEALER


ShiftInput = EmployeeLoggedIn | EmployeeLoggedOut
SHIFT_INPUT_CLASSES: Final = (EmployeeLoggedIn, EmployeeLoggedOut)


class Shift:
    """The dealer on shift (None: nobody), and whether the table needs one to deal (a staff registry rules it)."""

    def __init__(self, dealer: str | None = None, *, required: bool = False) -> None:
        self.dealer = dealer
        self.required = required

    def apply(self, item: ShiftInput) -> None:
        if isinstance(item, EmployeeLoggedIn):
            self.dealer = item.employee
        elif item.employee == self.dealer:
            self.dealer = None

    def author(self, item: object) -> str | None:
        """Who an input is by, once applied: the employee a login or logout names, else the dealer on shift."""
        if isinstance(item, SHIFT_INPUT_CLASSES):
            return item.employee
        return self.dealer

    def deal_refusal(self) -> Refusal | None:
        """Why DEAL is refused for want of a dealer (only where a staff registry rules the table)."""
        if self.required and self.dealer is None:
            return Refusal(RefusalReason.NO_DEALER, "no dealer is logged in: the dealer badges at the table's "
                                                    "reader or enters his own PIN on the display")
        return None

    def state(self) -> dict[str, Any]:
        return {} if self.dealer is None else {"dealer": self.dealer}

    @classmethod
    def restore(cls, state: Mapping[str, Any], *, required: bool = False) -> Shift:
        dealer = state.get("dealer")
        if dealer is not None and not isinstance(dealer, str):
            raise ValueError(f"a shift's dealer {dealer!r} is not an employee id")
        return cls(dealer, required=required)

    def view(self) -> dict[str, Any]:
        """What the snapshot adds: the dealer on shift, once a registry rules the table or someone logged in."""
        if not self.required and self.dealer is None:
            return {}
        return {"shift": {"dealer": self.dealer, "required": self.required}}


def login_inputs(shift: Shift, employee: str, via: Via) -> tuple[ShiftInput, ...]:
    """The inputs of `employee` taking the table: none if he holds it already; the dealer on shift pushed first."""
    if shift.dealer == employee:
        return ()
    pushed = () if shift.dealer is None else (EmployeeLoggedOut(employee=shift.dealer, reason="push"),)
    return (*pushed, EmployeeLoggedIn(employee=employee, via=via))


def logout_inputs(shift: Shift) -> tuple[ShiftInput, ...]:
    """The input of the dealer on shift leaving the table (none: nobody holds it)."""
    return () if shift.dealer is None else (EmployeeLoggedOut(employee=shift.dealer),)


def shift_to_dict(item: ShiftInput) -> dict[str, Any]:
    if isinstance(item, EmployeeLoggedIn):
        return {"employee": item.employee, "role": str(item.role), "via": item.via, "type": LOGGED_IN_TYPE,
                "schema_version": SCHEMA_VERSION}
    return {"employee": item.employee, "role": str(item.role), "reason": item.reason, "type": LOGGED_OUT_TYPE,
            "schema_version": SCHEMA_VERSION}


def shift_from_dict(body: Mapping[str, Any]) -> ShiftInput:
    """The login or logout a journal row holds; a `CodecError` naming what is wrong otherwise."""
    kind = body.get("type")
    try:
        employee, role = body["employee"], StaffRole(body.get("role", StaffRole.DEALER))
    except (KeyError, ValueError) as error:
        raise CodecError(f"bad {kind} input: {error}") from error
    if not isinstance(employee, str) or not employee:
        raise CodecError(f"bad {kind} input: employee {employee!r}")
    if kind == LOGGED_IN_TYPE:
        via = body.get("via")
        if via == "badge":
            return EmployeeLoggedIn(employee=employee, via="badge", role=role)
        if via == "pin":
            return EmployeeLoggedIn(employee=employee, via="pin", role=role)
        raise CodecError(f"bad {kind} input: via {via!r}, not one of {', '.join(VIAS)}")
    reason = body.get("reason", "logout")
    if reason == "push":
        return EmployeeLoggedOut(employee=employee, reason="push", role=role)
    if reason == "logout":
        return EmployeeLoggedOut(employee=employee, reason="logout", role=role)
    raise CodecError(f"bad {kind} input: reason {reason!r}, not one of {', '.join(OUT_REASONS)}")
