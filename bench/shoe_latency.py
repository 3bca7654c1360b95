"""Shoe latency: from the simulated firmware writing a card frame to the runtime holding the decoded card.

The simulated shoe (its own thread, a real pty) deals one card at a time from a
dealer thread; the real `SerialShoe` driver decodes it in the asyncio loop and
the consumer takes it from `events()`. Latency = the consumer's clock minus
the firmware's clock just before `os.write` (both `time.perf_counter_ns`).
The consumer acknowledges each card as it takes it (the driver acknowledges
nothing by itself: the runtime does once the card is journaled).
Also measures the frame decoder's throughput alone. Prints the command line,
the figures, and last `card_latency_ms p50=X p99=Y`.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys
import threading
import time

from drivers.shoe import CardDrawn, SerialShoe, ShoeOffline
from firmware_bridge.shoe import Frame, FrameDecoder, shoe_frame
from simulators.shoe import SimulatedShoe
from table_runtime.game.cards import ALL_CARDS


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def decoder_throughput(frames: int, chunk: int) -> tuple[float, int]:
    """MB/s of FrameDecoder.feed over `frames` card frames fed in `chunk`-byte pieces."""
    data = b"".join(
        shoe_frame(
            CardDrawn(sequence=index % 65536, code=ALL_CARDS[index % 52].code, card_number=index % 312 + 1,
                      raw_code=0x11)
        ).to_bytes()
        for index in range(frames)
    )
    decoder = FrameDecoder()
    decoded: list[Frame] = []
    started = time.perf_counter()
    for offset in range(0, len(data), chunk):
        decoded += decoder.feed(data[offset : offset + chunk])
    elapsed = time.perf_counter() - started
    assert len(decoded) == frames and decoder.bytes_skipped == 0
    return len(data) / elapsed / 1e6, len(data)


async def card_latencies(cards: int, seed: int) -> list[float]:
    written: dict[int, int] = {}
    latencies: list[float] = []
    go = threading.Event()
    stop = threading.Event()

    def on_frame_written(frame: Frame, when_ns: int) -> None:
        if frame.is_sequenced and not frame.is_retransmit:
            written[frame.sequence] = when_ns

    def dealer(shoe: SimulatedShoe) -> None:
        for _ in range(cards):
            while not go.wait(0.5):
                if stop.is_set():
                    return
            go.clear()
            if shoe.firmware.cards_left == 0:
                shoe.shuffle()
            shoe.draw()

    with SimulatedShoe(seed=seed, on_frame_written=on_frame_written) as simulated:
        async with SerialShoe(simulated.url) as shoe:
            thread = threading.Thread(target=dealer, args=(simulated,), name="dealer")
            thread.start()
            try:
                go.set()
                async with asyncio.timeout(cards * 0.05 + 30):
                    async for event in shoe.events():
                        if isinstance(event, CardDrawn):
                            latencies.append((time.perf_counter_ns() - written[event.sequence]) / 1e6)
                            shoe.acknowledge(event)  # as the table does once the card is journaled
                            if len(latencies) == cards:
                                break
                            go.set()
                        elif isinstance(event, ShoeOffline) and latencies:
                            raise RuntimeError(f"the shoe went offline during the bench: {event.reason}")
            finally:
                stop.set()
                thread.join()
    return latencies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decoder-frames", type=int, default=200_000)
    args = parser.parse_args(argv)
    print("command:", shlex.join([sys.executable, *sys.argv]))
    megabytes_per_second, size = decoder_throughput(args.decoder_frames, 4096)
    print(f"decoder_throughput_mb_s={megabytes_per_second:.1f} ({args.decoder_frames} card frames, {size} bytes, "
          "4096-byte chunks)")
    latencies = asyncio.run(card_latencies(args.cards, args.seed))
    print(f"cards={len(latencies)} mean={statistics.fmean(latencies):.3f} ms max={max(latencies):.3f} ms")
    print(f"card_latency_ms p50={percentile(latencies, 0.50):.3f} p99={percentile(latencies, 0.99):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
