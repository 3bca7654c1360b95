"""Chip integrity: which problem a tag has, in the documented order."""

from __future__ import annotations

from firmware_bridge.rfid import BlockStatus, Tag
from table_runtime.chips.integrity import check_chip, chip_value
from table_runtime.chips.registry import RegisteredChip

UID = "E004015000000001"
REGISTRY = {
    UID: RegisteredChip(uid=UID, denomination_cents=2500, casino_id=42, status="active"),
    "E004015000000002": RegisteredChip(uid="E004015000000002", denomination_cents=500, casino_id=7,
                                       status="active"),
    "E004015000000003": RegisteredChip(uid="E004015000000003", denomination_cents=500, casino_id=42,
                                       status="stolen"),
}


def kind(tag: Tag) -> str | None:
    problem = check_chip(tag, REGISTRY, casino_id=42)
    return None if problem is None else problem.kind


def test_a_good_chip_is_worth_the_registry_value() -> None:
    tag = Tag(uid=UID, denomination_cents=2500, casino_id=42)
    assert kind(tag) is None
    assert chip_value(tag, REGISTRY, 42) == 2500
    assert chip_value(Tag(uid=UID, block_status=BlockStatus.READ_FAILED), REGISTRY, 42) == 2500  # no data, no doubt


def test_unknown_uid_is_counterfeit_unless_its_tag_names_another_casino() -> None:
    assert kind(Tag(uid="E0040150000000FF", denomination_cents=2500, casino_id=42)) == "counterfeit_chip"
    assert kind(Tag(uid="E0040150000000FF", block_status=BlockStatus.READ_FAILED)) == "counterfeit_chip"
    assert kind(Tag(uid="E0040150000000FF", denomination_cents=2500, casino_id=9)) == "other_casino_chip"


def test_registered_to_another_casino_before_status_before_tag_data() -> None:
    assert kind(Tag(uid="E004015000000002", denomination_cents=500, casino_id=7)) == "other_casino_chip"
    assert kind(Tag(uid="E004015000000003", denomination_cents=9999, casino_id=42)) == "stolen_chip"
    assert kind(Tag(uid=UID, denomination_cents=10_000, casino_id=42)) == "tag_mismatch"
    assert kind(Tag(uid=UID, denomination_cents=2500, casino_id=43)) == "tag_mismatch"
    problem = check_chip(Tag(uid=UID, denomination_cents=10_000, casino_id=42), REGISTRY, 42)
    assert problem is not None
    assert (problem.expected_cents, problem.seen_cents) == (2500, 10_000)
    assert chip_value(Tag(uid=UID, denomination_cents=10_000, casino_id=42), REGISTRY, 42) == 0
