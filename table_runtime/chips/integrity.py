"""Chip integrity: is a tag one of this casino's good chips, and what is it worth?

docs/rules.md "Chip integrity": an unknown UID (counterfeit), a void or stolen
chip, a chip of another casino, or a tag whose data disagrees with the registry
is refused. A refused chip is worth nothing on the table (its value is 0 in
every zone total) and raises an alarm naming the zone, the box and the UID.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from firmware_bridge.rfid import Tag
from table_runtime.chips.registry import RegisteredChip
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind

ChipProblemKind = Literal[AlarmKind.COUNTERFEIT_CHIP, AlarmKind.VOID_CHIP, AlarmKind.STOLEN_CHIP,
                          AlarmKind.OTHER_CASINO_CHIP, AlarmKind.TAG_MISMATCH]

RULES: dict[ChipProblemKind, str] = {
    AlarmKind.COUNTERFEIT_CHIP: citations.CHIP_UNKNOWN,
    AlarmKind.VOID_CHIP: citations.CHIP_VOID,
    AlarmKind.STOLEN_CHIP: citations.CHIP_STOLEN,
    AlarmKind.OTHER_CASINO_CHIP: citations.CHIP_OTHER_CASINO,
    AlarmKind.TAG_MISMATCH: citations.CHIP_TAG,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipProblem:
    """Why one tag is refused; the amounts are the registry's and the tag's values, in cents."""

    kind: ChipProblemKind
    uid: str
    expected_cents: int | None  # the registry's denomination, if the chip is registered
    seen_cents: int | None  # the tag's denomination, if its block was read
    detail: str

    @property
    def rule(self) -> str:
        return RULES[self.kind]


def check_chip(tag: Tag, registry: Mapping[str, RegisteredChip], casino_id: int) -> ChipProblem | None:
    """The first problem with `tag`, in the order of the table above, or None for a good chip."""
    registered = registry.get(tag.uid)
    seen = tag.denomination_cents

    def problem(kind: ChipProblemKind, detail: str) -> ChipProblem:
        expected = registered.denomination_cents if registered else None
        return ChipProblem(kind=kind, uid=tag.uid, expected_cents=expected, seen_cents=seen, detail=detail)

    if registered is None:
        if tag.casino_id is not None and tag.casino_id != casino_id:
            return problem(AlarmKind.OTHER_CASINO_CHIP, f"not registered here; its tag says casino {tag.casino_id}, "
                                                        f"this table is casino {casino_id}")
        return problem(AlarmKind.COUNTERFEIT_CHIP, "UID unknown to the registry")
    if registered.casino_id != casino_id:
        return problem(AlarmKind.OTHER_CASINO_CHIP, f"registered to casino {registered.casino_id}, "
                                                    f"this table is casino {casino_id}")
    if registered.status == "void":
        return problem(AlarmKind.VOID_CHIP, "the registry marks it void")
    if registered.status == "stolen":
        return problem(AlarmKind.STOLEN_CHIP, "the registry marks it stolen")
    if seen is not None and seen != registered.denomination_cents:
        return problem(AlarmKind.TAG_MISMATCH, f"tag says {seen} cents, registry says {registered.denomination_cents}")
    if tag.casino_id is not None and tag.casino_id != registered.casino_id:
        return problem(AlarmKind.TAG_MISMATCH, f"tag says casino {tag.casino_id}, registry says {registered.casino_id}")
    return None


def chip_value(tag: Tag, registry: Mapping[str, RegisteredChip], casino_id: int) -> int:
    """What the chip counts for on this table: the registry's denomination, 0 if refused."""
    if check_chip(tag, registry, casino_id) is not None:
        return 0
    return registry[tag.uid].denomination_cents
