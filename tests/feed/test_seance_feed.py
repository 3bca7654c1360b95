"""The séance on the feed (docs/feed/asyncapi.yaml, schemas/event.json): every séance input and its SeanceUpdated
event of a played séance validate against the published schema, as the table journals them; a body missing its
figures, or naming the identity instead of its reference, does not."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from table_runtime.feed.messages import Topics, messages_for_entry, state_message
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

from .support import JOURNAL, validators_by_topic

OPENER = {"50000": 20, "10000": 40}
PLAYER = "p-4471ab09cd3e"


def test_a_played_seance_validates_on_the_events_topic(tmp_path: Path) -> None:
    ticks = itertools.count()
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_800_000_000.0 + next(ticks))
        for name, args, role in (
                ("SEANCE_OPEN", {"chips": OPENER}, "dealer"),
                ("BUY_IN", {"cents": 250_000, "box": 2, "player": PLAYER}, "dealer"),
                ("IDENTITY_RECORDED", {"player": PLAYER, "reference": "KYC-2026/0042"}, "supervisor"),
                ("FILL", {"chips": OPENER}, "dealer"),
                ("SLIP_CONFIRM", {"number": 1}, "supervisor"),
                ("CREDIT", {"chips": {"50000": 3}}, "dealer"),
                ("SLIP_CONFIRM", {"number": 2}, "supervisor"),
                ("TIP", {"box": 2, "cents": 500}, "dealer"),
                ("ORPHAN_CHIPS", {"cents": 100, "where": "under box 6"}, "dealer"),
                ("SEANCE_CLOSE", {"chips": {"50000": 41, "10000": 80}, "source": "manual"}, "dealer")):
            reply = controller.press(name, args, role=role, source="display")
            assert reply["ok"], reply
        entries = [entry for entry in journal.entries() if entry.kind in ("input", "event", "alarm")]
        snapshot = controller.snapshot()
    validator = validators_by_topic()["events"]
    topics = Topics("casino", "T1")
    # The retained state carries the séance (the last one closed) as the display's snapshot has it.
    assert snapshot["seance"]["last"]["win_cents"] is not None
    state = state_message(topics, snapshot, journal=JOURNAL, ts=2.5)
    validators_by_topic()["state"].validate(json.loads(state.encode()))
    checked = set()
    for entry in entries:
        for message in messages_for_entry(topics, entry, JOURNAL):
            if message.topic.endswith("/events"):
                validator.validate(json.loads(message.encode()))
                checked.add(str(entry.body.get("type", entry.body.get("kind"))))
    assert {"SeanceOpened", "SlipRequested", "SlipConfirmed", "TipReceived", "OrphanChipsFound", "IdentityRecorded",
            "SeanceClosed", "SeanceUpdated", "Alarm"} <= checked
    updated = next(entry for entry in entries if entry.body.get("type") == "SeanceUpdated")
    figureless = {key: value for key, value in updated.body.items() if key != "fills_cents"}
    (message,) = messages_for_entry(topics, updated.__class__(99, updated.ts, "event", figureless, updated.prev_hash,
                                                              updated.hash), JOURNAL)
    assert not validator.is_valid(json.loads(message.encode()))
    identity = next(entry for entry in entries if entry.body.get("type") == "IdentityRecorded")
    named = {**identity.body, "reference": "Jean Dupont"}
    (message,) = messages_for_entry(topics, identity.__class__(99, identity.ts, "input", named, identity.prev_hash,
                                                               identity.hash), JOURNAL)
    assert not validator.is_valid(json.loads(message.encode()))
