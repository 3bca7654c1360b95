"""The background audit of the rows a start did not verify: a chunk at a time, in a worker thread, off the loop.

A start verified the chain from its checkpoint to the head and replayed the rows after it (controller.py).
Once the table plays, this task checks what is older (docs/journal.md "Checkpoints"):

1. the chain from the first row to the start's checkpoint, and each older checkpoint's seal and row
   (journal/audit.py), `chunk_rows` rows per worker call: a changed, deleted or reordered row is found
   within seconds even in a journal of a million rows;
2. every checkpoint's state against the replay of the rows before it, from the checkpoint before (a state
   forged together with its seal).

A break stops play with a `journal_broken` alarm (`TableController.journal_broken`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from table_runtime.core.core_state import checkpoint_state
from table_runtime.errors import JournalError
from table_runtime.journal import Checkpoint
from table_runtime.journal.audit import CHUNK_ROWS, AuditBreak, ChainAudit
from table_runtime.journal.checkpoints import encode_state
from table_runtime.runtime.checkpointing import rebuild
from table_runtime.runtime.controller import TableController

log = logging.getLogger(__name__)
PAUSE_S = 0.005  # between two chunks: the loop and the writer get the interpreter back


async def audit_journal(controller: TableController, *, chunk_rows: int = CHUNK_ROWS, pause_s: float = PAUSE_S,
                        on_broken: Callable[[AuditBreak], None] | None = None) -> None:
    """Check the rows before the start's checkpoint, then the checkpoints' states; a break stops play (or is
    passed to `on_broken`, for a caller that refuses the journal instead)."""
    journal = controller.journal

    async def broken(finding: AuditBreak) -> None:
        if on_broken is not None:
            on_broken(finding)
        else:
            await _broken(controller, finding)

    start = journal.start_checkpoint
    if start is None:
        return  # the start verified every row
    audit = ChainAudit(journal.path, start.seq, start.chain_hash, chunk_rows=chunk_rows)
    while not audit.done:
        finding = await asyncio.to_thread(audit.step)
        if finding is not None:
            await broken(finding)
            return
        await asyncio.sleep(pause_s)
    log.info("journal audit: rows 1..%d verified (chain)", start.seq)
    sealed = await asyncio.to_thread(journal.checkpoints_until, start.seq)
    previous: Checkpoint | None = None
    for checkpoint in sealed:
        finding = await asyncio.to_thread(replay_check, controller, previous, checkpoint)
        if finding is not None:
            await broken(finding)
            return
        previous = checkpoint
        await asyncio.sleep(pause_s)
    log.info("journal audit: %d checkpoint(s) replayed and equal", len(sealed))


async def _broken(controller: TableController, finding: AuditBreak) -> None:
    log.error("journal audit: %s: %s", controller.journal.path, finding.reason)
    await controller.step(controller.journal_broken, finding.seq, finding.reason)


def replay_check(controller: TableController, previous: Checkpoint | None, checkpoint: Checkpoint) -> AuditBreak | None:
    """Whether the rows between two checkpoints (from the first row when `previous` is None) fold to the second's
    state (the one fold of the journal, core/record.py); the break when they do not."""
    try:
        core = rebuild(controller.journal, previous, until=checkpoint.seq)
        replayed = encode_state(checkpoint_state(core))
    except (JournalError, KeyError, TypeError, ValueError) as error:
        return AuditBreak(checkpoint.seq, f"checkpoint at row {checkpoint.seq}: the rows before it do not replay: "
                                          f"{error}")
    if replayed != checkpoint.state_text:
        return AuditBreak(checkpoint.seq, f"checkpoint at row {checkpoint.seq}: its state is not what the rows "
                                          "before it replay to (checkpoint forged)")
    return None
