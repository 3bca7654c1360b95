"""The process's heap while the table runs: what was alive at the start is kept out of the garbage collector's way.

CPython's cyclic collector now and then walks every tracked object of the process (a full, "generation 2"
collection), holding the GIL the whole time, in whichever thread happened to allocate: the event loop, or
the readers' edge in its worker thread, which then blocks the loop just as well. A storm of 10,000 junk
tags (10,000 tags kept by the debounce) set one off, and it blocked the loop 58 to 104 ms with the heap of
start-up (modules, the replayed core, the drivers) in it; most of that heap lives as long as the process.
`frozen_heap` moves it to the collector's permanent generation once the table is up (`gc.freeze`), so a
full collection walks only what the table made since (bench/README.md, "Hostile input").

The one full collection of that heap (its garbage is not frozen with it) is `collect_start_up_heap`, which
`assemble` calls last, as the journal's replay: before the loop serves anything. Run by `frozen_heap` it
blocked the running loop 65 to 86 ms on half a core with an aged journal's heap (bench/README.md, "A month-old
table restarted"); the block collects only the young generations, what was made since.

The price: a reference cycle that was alive at the start and dies later is not collected while frozen
(the start-up heap is the table's own long-lived state, so this is little); the end of the block gives
the objects back to the collector (`gc.unfreeze`), so a process that runs several tables one after another
(the tests) frees them.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


def collect_start_up_heap() -> None:
    """The full collection of the start-up heap, before the table serves (a table's assembly ends with it)."""
    gc.collect()


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """Collect the young generations, then freeze what is left (the start-up heap) until the block ends."""
    gc.collect(1)
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
