"""The heap of start-up is frozen while the table runs (runtime/heap.py): a full garbage collection, which holds
the GIL in whichever thread it starts (the readers' edge's worker included), then walks only what the table made
since, not every module and the replayed core; the end of the run gives it back to the collector."""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path

from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.heap import frozen_heap


def test_the_block_freezes_what_is_alive_and_gives_it_back() -> None:
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen > 1000  # at least the modules' functions and classes
        made_since = [[n] for n in range(100)]
        assert gc.get_freeze_count() == frozen and gc.is_tracked(made_since[0])  # new objects stay collectable
    assert gc.get_freeze_count() == 0


async def test_the_table_runs_with_its_start_up_heap_frozen(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                     clock=time.time)
        app = TableApp(controller)
        assert gc.get_freeze_count() == 0
        async with asyncio.timeout(10), asyncio.TaskGroup() as tasks:
            running = tasks.create_task(app.run())
            await app.wait_for_change()  # the first snapshot: the app is up
            assert gc.get_freeze_count() > 1000
            app.stop()
            await running
        assert gc.get_freeze_count() == 0


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_the_block_never_walks_the_old_generation() -> None:
    """The full collection is the assembly's, before the loop serves (it blocked the running loop 65 to 86 ms on
    half a core with an aged journal's heap): the block collects only the young generations."""
    import weakref

    old = _Node()
    gc.collect()  # `old` is in the oldest generation now
    dead = weakref.ref(old)
    del old  # garbage in the oldest generation: only a full collection frees it
    with frozen_heap():
        assert dead() is not None
    gc.collect()
    assert dead() is None
