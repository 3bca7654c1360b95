"""Bench: how long the player card reader's driver holds the event loop while a reader types without end.

A writer thread types one card number of `--characters` characters (no ENTER until the end) into the simulated
reader's FIFO as fast as the pipe takes it (simulators/player_card.py); the real driver (drivers/player_card.py)
reads and decodes it on the loop. Printed: the longest wake-up of the driver in CPU time of the loop's thread
(`time.thread_time`: what the driver itself holds the loop for, whatever else the machine runs), the longest gap
between two ticks of a task waking every millisecond on the same loop, less the millisecond (wall time: on a busy
machine it also counts the time the process was not scheduled), the reads the driver got (one refusal, "no
ENTER within 64 keys", then the card swiped after it) and the CPU time of the run.

`--reads-per-wake N` sets how many reads one wake-up of the loop may do (the driver's READS_PER_WAKE, 16); a large
N is the driver as it was, reading until the pipe was empty.

Run: python -m bench.player_card_loop [--characters 1048576] [--reads-per-wake 16]
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import drivers.player_card as player_card
from drivers.ports import CardRead, CardUnreadable
from simulators.player_card import SimulatedCardReader, typed

PIECE = 4096  # characters typed per write (the records of a piece are written in one go)


async def run(characters: int) -> tuple[float, float, list[str], float]:
    """The longest wake-up (CPU s), the longest loop block (wall s), the reads, the CPU seconds."""
    with tempfile.TemporaryDirectory() as directory, SimulatedCardReader(Path(directory) / "card-kbd") as card:
        reader = player_card.EvdevCardReader(card.path, retry_seconds=0.02)
        wake_up = 0.0
        readable = reader._readable

        def timed() -> None:
            nonlocal wake_up
            started = time.thread_time()
            readable()
            wake_up = max(wake_up, time.thread_time() - started)

        reader._readable = timed  # type: ignore[method-assign]
        async with reader:
            reads = reader.reads()
            await anext(reads)  # online
            piece = typed("7" * PIECE, enter=False)

            def type_card() -> None:
                for _ in range(characters // PIECE):
                    card.write(piece)
                card.swipe("42")  # the ENTER ends the endless card; the next swipe is its own

            longest = 0.0
            done = asyncio.Event()

            async def tick() -> None:
                nonlocal longest
                last = time.perf_counter()
                while not done.is_set():
                    await asyncio.sleep(0.001)
                    now = time.perf_counter()
                    longest = max(longest, now - last - 0.001)
                    last = now

            cpu = time.process_time()
            ticker = asyncio.create_task(tick())
            writer = threading.Thread(target=type_card)
            writer.start()
            got: list[str] = []
            while len(got) < 1:
                event = await anext(reads)
                if isinstance(event, CardUnreadable):
                    got.append(f"refused: {event.reason}")
            await asyncio.to_thread(writer.join)
            card.swipe("43")
            while True:
                event = await anext(reads)
                if isinstance(event, CardRead):
                    got.append("read")
                    break
                if isinstance(event, CardUnreadable):
                    got.append(f"refused: {event.reason}")
            done.set()
            await ticker
            await reads.aclose()
            return wake_up, longest, got, time.process_time() - cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=1 << 20)
    parser.add_argument("--reads-per-wake", type=int, default=player_card.READS_PER_WAKE)
    args = parser.parse_args(argv)
    player_card.READS_PER_WAKE = args.reads_per_wake
    print("command: " + ("python -m bench.player_card_loop " + shlex.join(sys.argv[1:])).strip())
    wake_up, longest, got, cpu = asyncio.run(run(args.characters))
    size = args.characters * len(typed("7", enter=False))
    print(f"a card of {args.characters} characters ({size / 2**20:.1f} MiB of records), {args.reads_per_wake} reads "
          f"per wake-up: longest wake-up {wake_up * 1000:.1f} ms CPU, longest loop block {longest * 1000:.1f} ms "
          f"wall; {cpu:.1f} s CPU; reads: {'; '.join(got)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
