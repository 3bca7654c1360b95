"""When the display lets a screen recall rounds: one recall at a time, each screen at most once a second,
and the pit's recalls spaced so the work of recalling takes at most a third of the time.

A recall replays the journal (docs/journal.md): CPU work that grows with the journal. It runs in a worker
thread with its JSON encoding, so the event loop only sends the finished text; but a Python thread still
shares the interpreter with the loop, and five pit screens recalling in a loop (each thread taking its
turn) slowed the dealer's snapshots from 1.5 ms to 65 ms. So:

- one recall runs at a time, table-wide;
- a screen (a WebSocket, or an address for ``/api/recall``) asks at most once per `RECALL_INTERVAL_S`;
- a pit recall is refused at once ("recall_busy") while another runs, and until twice as long after the
  last one ended as that one took (at least `RECALL_PIT_GAP_S`): the recall thread holds the interpreter
  at most about a third of the time, whatever the number of pit screens (while it runs, the loop waits
  for the interpreter up to sys.getswitchinterval(), 5 ms, at each turn);
- the dealer's recall is never refused for the pit's: it waits for the running one (at most
  `RECALL_WAIT_S`), then runs.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from table_runtime.core.alarm_ledger import for_the_dealer

RECALL_INTERVAL_S = 1.0  # per screen (the refusal says "a second"): reading and encoding rounds is work
RECALL_PIT_GAP_S = 0.5  # at least this long between the end of one recall and the start of a pit recall
RECALL_PIT_IDLE_FACTOR = 2.0  # and at least this many times as long as that recall took
RECALL_WAIT_S = 10.0  # how long the dealer's recall waits for the one running

Recall = Callable[[int], list[dict[str, Any]]]


class RecallRefused(Exception):
    """A recall the gate does not run now; `reason` is the page's code, the message its English text."""

    def __init__(self, message: str, reason: str = "recall_busy") -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(eq=False, slots=True)
class RecallClient:
    """One screen (or one address of the HTTP API) as the gate counts it."""

    last_request: float = float("-inf")


class RecallGate:
    """Runs the backend's recall off the event loop, one at a time, at the rates the module docstring says."""

    def __init__(self, recall: Recall, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._recall = recall
        self._clock = clock
        self._running = asyncio.Lock()
        self._pit_not_before = float("-inf")
        self.ran = 0  # recalls run, for tests and the bench
        self.refused = 0

    async def recall(self, client: RecallClient, last: int, *, dealer: bool,
                     envelope: dict[str, Any] | None = None) -> str:
        """The JSON text of the last `last` rounds (inside `envelope`, under ``"rounds"``, if given);
        or `RecallRefused`."""
        now = self._clock()
        if now - client.last_request < RECALL_INTERVAL_S:
            self.refused += 1
            raise RecallRefused("recall: one request a second on this screen")
        if not dealer and (self._running.locked() or now < self._pit_not_before):
            self.refused += 1
            raise RecallRefused("recall: the table is answering another recall; try again in a moment")
        client.last_request = now
        try:
            async with asyncio.timeout(RECALL_WAIT_S):
                await self._running.acquire()
        except TimeoutError:
            self.refused += 1
            raise RecallRefused("recall: the table is answering another recall; try again in a moment") from None
        started = self._clock()
        # The thread is not stopped by a screen that leaves: the gate stays taken until it has finished.
        work = asyncio.get_running_loop().run_in_executor(None, self._encoded, last, envelope, dealer)
        work.add_done_callback(lambda _: self._finished(started))
        return await asyncio.shield(work)

    def _finished(self, started: float) -> None:
        ended = self._clock()
        self._pit_not_before = ended + max(RECALL_PIT_GAP_S, RECALL_PIT_IDLE_FACTOR * (ended - started))
        self.ran += 1
        self._running.release()

    def _encoded(self, last: int, envelope: dict[str, Any] | None, dealer: bool) -> str:
        # In the worker thread: the rounds of a long recall make megabytes of JSON.
        rounds = self._recall(last)
        if dealer:  # the advice for the supervisor is not the dealer's to see
            rounds = [for_the_dealer(round_) for round_ in rounds]
        return json.dumps(rounds if envelope is None else {**envelope, "rounds": rounds}, separators=(",", ":"))
