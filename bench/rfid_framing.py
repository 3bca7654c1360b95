"""Bench: the chip reader's frame decoder (firmware_bridge/rfid/framing.py), MB/s on three kinds of stream.

MB/s of CPU time (`time.process_time`): the machine is shared, wall time would measure the others too.

* random: noise from a seeded RNG (a sync now and then, most claiming an implausible length);
* valid: INVENTORY_RESULT-sized frames back to back (900-byte bodies);
* adversarial: a sync every 4 bytes, each claiming a frame of 8 to 16 KiB, so every candidate's CRC
  must be checked (the old decoder ran its pure-Python CRC over each claimed frame: about 976 s per MB).

Each stream is fed in 16 KiB pieces (the driver's USB read size). Also prints the CRC work per byte fed.

Run: python -m bench.rfid_framing [--megabytes 4]
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from collections.abc import Sequence

from firmware_bridge.rfid import SYNC, Frame, FrameDecoder
from firmware_bridge.rfid.framing import MAX_LENGTH

CHUNK = 16384


def streams(size: int) -> dict[str, bytes]:
    rng = random.Random(1)
    valid = bytearray()
    while len(valid) < size:
        valid += Frame(len(valid) % 256, 0x82, rng.randbytes(900)).to_bytes()
    adversarial = b"".join(SYNC + rng.randrange(8192, MAX_LENGTH).to_bytes(2, "little") for _ in range(size // 4))
    return {"random": rng.randbytes(size), "valid": bytes(valid), "adversarial": adversarial}


def measure(stream: bytes) -> tuple[float, int, float]:
    """MB/s, frames found, CRC bytes per byte fed."""
    decoder = FrameDecoder()
    found = 0
    started = time.process_time()
    for begin in range(0, len(stream), CHUNK):
        found += len(decoder.feed(stream[begin : begin + CHUNK]))
    elapsed = time.process_time() - started
    return len(stream) / elapsed / 1e6, found, decoder.crc_bytes / len(stream)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=4.0)
    args = parser.parse_args(argv)
    print("command: " + ("python -m bench.rfid_framing " + shlex.join(sys.argv[1:])).strip())
    for name, stream in streams(int(args.megabytes * 1e6)).items():
        rate, found, work = measure(stream)
        print(f"{name:12s} {len(stream) / 1e6:5.1f} MB  {rate:7.1f} MB/s  {found:6d} frames  "
              f"{work:5.2f} CRC bytes per byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
