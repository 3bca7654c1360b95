"""Helpers of the floor's tests: run messages through `Ingest` into the store, batch by batch."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from casino_floor.ingest import Ingest
from casino_floor.store import Batch, FloorStore


async def store_messages(store: FloorStore, ingest: Ingest, messages: Iterable[tuple[str, dict[str, Any]]], *,
                         now: float, batch_rows: int = 500) -> None:
    """(topic name, payload) pairs written in batches of `batch_rows`, as the service does."""
    batch = Batch()
    for name, payload in messages:
        ingest.take(name, payload, batch)
        if len(batch.rows) >= batch_rows:
            await commit(store, ingest, batch, now)
            batch = Batch()
    await commit(store, ingest, batch, now)


async def commit(store: FloorStore, ingest: Ingest, batch: Batch, now: float) -> None:
    for track, seq, hash_ in ingest.lookups:
        batch.alarms.extend(track.head(seq, hash_, await store.hash_at(track.table_id, track.journal, seq)))
    ingest.lookups.clear()
    ingest.finish(batch, now)
    await store.write(batch)
    ingest.committed(batch)
