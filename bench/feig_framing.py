"""Bench: the FEIG ISO-Host frame decoder (firmware_bridge/feig/framing.py), its CRC work and MB/s on hostile streams.

FEIG's standard frame has no sync byte: every byte of a stream may start a frame whose LEN claims up to 255 bytes,
so every byte is a candidate whose CRC is checked. The decoder gets each candidate's CRC from the registers it
keeps every `STEP` bytes (firmware_bridge/crc_stream.py); this bench prints, per stream, the bytes run through the
CRC per byte fed (the decoder's `crc_bytes`) and MB/s of CPU time (`time.process_time`: the machine is shared).

* standard LEN 255: every byte claims a full standard frame;
* standard short spans: every byte claims a frame whose CRC span is exactly `step` bytes (checked directly);
* standard worst: each byte's LEN chosen so that its span ends `step - 1` bytes past a register (the most the
  registers leave to run through the CRC at that end);
* advanced: an advanced start every 3 bytes claiming 4 to 16 KiB (the unit tests' hostile stream);
* random: noise from a seeded RNG, either frame shape accepted (as the simulated reader decodes).

Fed in 16 KiB pieces. `--step 64` measures the register spacing the decoder had before (the chip reader's).

Run: python -m bench.feig_framing [--kilobytes 256] [--step N]
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from collections.abc import Sequence

from firmware_bridge.feig import FrameDecoder
from firmware_bridge.feig.framing import MAX_ADVANCED, STANDARD_MAX, STEP

CHUNK = 16384


def worst_standard(size: int, step: int) -> bytes:
    """Each byte a LEN whose CRC span (LEN - 2 bytes) is longer than `step` and ends `step - 1` past a register."""
    stream = bytearray()
    for at in range(size):
        stream.append(next(length for length in range(STANDARD_MAX, 4, -1)
                           if length - 2 > step and (at + length - 2) % step == step - 1))
    return bytes(stream)


def streams(size: int, step: int) -> dict[str, tuple[bytes, bool | None]]:
    rng = random.Random(4)
    advanced = b"".join(bytes((2,)) + rng.randrange(4096, MAX_ADVANCED).to_bytes(2, "big") for _ in range(size // 3))
    return {
        "standard LEN 255": (b"\xff" * size, False),
        "standard short spans": (bytes((step + 2,)) * size, False),
        "standard worst": (worst_standard(size, step), False),
        "advanced 4-16 KiB": (advanced, True),
        "random": (random.Random(1).randbytes(size), None),
    }


def measure(stream: bytes, *, advanced: bool | None, step: int) -> tuple[float, float]:
    """MB/s of CPU time, CRC bytes per byte fed."""
    decoder = FrameDecoder(advanced=advanced, step=step)
    started = time.process_time()
    for begin in range(0, len(stream), CHUNK):
        decoder.feed(stream[begin : begin + CHUNK])
    elapsed = time.process_time() - started
    return len(stream) / elapsed / 1e6, decoder.crc_bytes / len(stream)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kilobytes", type=float, default=256.0)
    parser.add_argument("--step", type=int, default=STEP, help=f"register spacing (default {STEP})")
    args = parser.parse_args(argv)
    print("command: " + ("python -m bench.feig_framing " + shlex.join(sys.argv[1:])).strip())
    print(f"register every {args.step} bytes: at most {2 * args.step - 1} CRC bytes per byte fed")
    for name, (stream, advanced) in streams(int(args.kilobytes * 1000), args.step).items():
        rate, work = measure(stream, advanced=advanced, step=args.step)
        print(f"{name:22s} {len(stream) / 1000:7.0f} KB  {rate:6.2f} MB/s  {work:6.2f} CRC bytes per byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
