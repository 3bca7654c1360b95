"""The floor takes a table's checkpoint only as the table sealed (and, with its head key, signed) it: a state
changed under its seal is quarantined, an unsigned one from a keyed table is evidence; neither is kept for the
round record to start from."""

from __future__ import annotations

from casino_floor.ingest import Ingest
from casino_floor.set_aside import EvidenceKind
from casino_floor.store import Batch
from table_runtime.feed.messages import Topics, checkpoint_message
from table_runtime.journal.checkpoints import Checkpoint, encode_state, seal_of

JOURNAL = "5f0c1e2d3b4a59687766554433221100"
KEY = b"k" * 32


def message(state: dict[str, object], *, key: bytes | None = None, forged: bool = False) -> dict[str, object]:
    text = encode_state(state)
    chain_hash = "ab" * 32
    checkpoint = Checkpoint(120, chain_hash, text, seal_of(120, chain_hash, text))
    payload = checkpoint_message(Topics("casino", "T1"), checkpoint, journal=JOURNAL, ts=5.0, key=key).payload
    if forged:
        payload["state"] = encode_state({**state, "rounds": 99})
    return payload


def test_a_sealed_checkpoint_is_kept_and_one_changed_under_its_seal_is_quarantined() -> None:
    ingest, batch = Ingest(), Batch()
    assert ingest.take("checkpoints", message({"rounds": 3}), batch)
    assert [(c.table_id, c.journal, c.seq) for c in batch.checkpoints] == [("T1", JOURNAL, 120)]
    assert not ingest.take("checkpoints", message({"rounds": 3}, forged=True), batch)
    assert len(batch.checkpoints) == 1
    (aside,) = batch.set_aside
    assert aside.evidence is None and "seal" in aside.reason
    assert [alarm.kind.value for alarm in batch.alarms] == ["quarantined"]


def test_a_keyed_table_s_checkpoint_counts_only_signed() -> None:
    ingest, batch = Ingest(head_keys={"T1": (KEY,)}), Batch()
    assert not ingest.take("checkpoints", message({"rounds": 3}), batch)
    assert not ingest.take("checkpoints", message({"rounds": 3}, key=b"x" * 32), batch)
    assert [aside.evidence for aside in batch.set_aside] == [EvidenceKind.BAD_SIGNATURE] * 2
    assert ingest.take("checkpoints", message({"rounds": 3}, key=KEY), batch)
    assert [c.seq for c in batch.checkpoints] == [120]
