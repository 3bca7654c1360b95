"""`table-sim shoe`: a simulated shoe on a pty, driven by simple commands on stdin.

    table-sim shoe --link /tmp/ttySHOE [--seed N] [--stack FILE]

prints `ready <link>` once the device exists, then reads one command a line
(`help` lists them) and answers one line each, so a bench script or a human
can deal. The link is removed on exit.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from simulators.shoe import Fault, SimulatedShoe, read_stack
from simulators.shoe_firmware import CUT_CARDS_BEHIND, DECKS, SimulatedShoeError
from table_runtime.errors import TableError

HELP = """commands:
  draw [N]                 the dealer pulls N cards (default 1)
  shuffle                  a new shoe (the next of the seed)
  load FILE                a stacked shoe from a file of card codes
  fault corrupt|drop|duplicate|lose|unreadable|door|jam
  fault delay MS           hold everything the shoe sends for MS milliseconds
  fault disconnect [MS]    the device vanishes for MS milliseconds (default 1000)
  door open|close          open or close the shoe's door
  jam | unjam              a card jams, or the jam is cleared
  unplug | replug          pull the cable, plug it back
  status                   shoe, cards drawn and left, door, gate
  quit"""


def status(shoe: SimulatedShoe) -> str:
    firmware = shoe.firmware
    gate = "locked" if firmware.gate_locked else "locked (buffer full)" if firmware.buffer_locked else "unlocked"
    return (
        f"shoe {firmware.shoe_id} seed {firmware.seed} drawn {firmware.cards_drawn} left {firmware.cards_left} "
        f"cut at {firmware.cut_position} door {'open' if firmware.door_open else 'closed'} "
        f"gate {gate} {'plugged' if shoe.plugged else 'unplugged'} "
        f"unacknowledged {firmware.unacknowledged}"
    )


def execute(shoe: SimulatedShoe, line: str) -> str:
    """Run one console command; the answer line. Bad commands answer `error: ...`."""
    words = line.split()
    if not words:
        return ""
    command, arguments = words[0].lower(), words[1:]
    try:
        return _execute(shoe, command, arguments)
    except (TableError, ValueError, OSError) as error:
        return f"error: {error}"


def _execute(shoe: SimulatedShoe, command: str, arguments: list[str]) -> str:
    if command == "draw":
        count = int(arguments[0]) if arguments else 1
        drawn: list[str] = []
        for _ in range(count):
            drawn.append(shoe.draw().code)
        return f"drew {' '.join(drawn)} ({shoe.firmware.cards_drawn} drawn, {shoe.firmware.cards_left} left)"
    if command == "shuffle":
        shoe.shuffle()
        return f"shuffled shoe {shoe.firmware.shoe_id}"
    if command == "load" and len(arguments) == 1:
        cards = read_stack(Path(arguments[0]))
        shoe.load_stack(cards)
        return f"loaded shoe {shoe.firmware.shoe_id}: {len(cards)} stacked cards"
    if command == "fault" and arguments:
        fault = Fault(arguments[0].lower())
        default = 1000 if fault is Fault.DISCONNECT else 500
        milliseconds = int(arguments[1]) if len(arguments) > 1 else default
        shoe.inject(fault, milliseconds)
        return f"fault {fault.value}" + (f" {milliseconds} ms" if fault in (Fault.DELAY, Fault.DISCONNECT) else "")
    if command == "door" and arguments in (["open"], ["close"]):
        (shoe.open_door if arguments == ["open"] else shoe.close_door)()
        return f"door {arguments[0]}"
    if command == "jam":
        shoe.jam()
        return "jammed"
    if command == "unjam":
        shoe.clear_jam()
        return "jam cleared"
    if command == "unplug":
        shoe.unplug()
        return "unplugged"
    if command == "replug":
        shoe.replug()
        return f"replugged {shoe.link}"
    if command == "status":
        return status(shoe)
    if command == "help":
        return HELP
    raise ValueError(f"unknown command {' '.join([command, *arguments])!r} (try 'help')")


def serve(shoe: SimulatedShoe, commands: TextIO, answers: TextIO, *, stay: bool = False) -> None:
    """Answer commands until `quit` or the end of input (then wait for a signal if `stay`)."""
    print(f"ready {shoe.link}", file=answers, flush=True)
    for line in commands:
        if line.strip().lower() in ("quit", "exit"):
            return
        answer = execute(shoe, line)
        if answer:
            print(answer, file=answers, flush=True)
    if stay:
        threading.Event().wait()


def _stop_on_signal(number: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    stack = read_stack(Path(args.stack)) if args.stack else None
    signal.signal(signal.SIGTERM, _stop_on_signal)
    shoe = SimulatedShoe(
        seed=args.seed,
        shoe_number=args.shoe_number,
        cards_already_drawn=args.drawn,
        stack=stack,
        link=args.link,
        decks=args.decks,
        cut_cards_behind=args.cut_cards_behind,
    )
    try:
        with shoe:
            serve(shoe, sys.stdin, sys.stdout, stay=args.stay)
    except SimulatedShoeError as error:
        print(f"table-sim: error: {error}", file=sys.stderr)
        return 2
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "shoe", help="a simulated electronic shoe on a pty", description=__doc__
    )
    parser.add_argument("--link", required=True, help="symlink to create to the pty device, e.g. /tmp/ttySHOE")
    parser.add_argument("--seed", type=int, default=0, help="seed of the shuffles (default 0)")
    parser.add_argument("--stack", help="file of card codes in draw order: a stacked first shoe")
    parser.add_argument("--shoe-number", type=int, default=1, help="which shoe of the seed to start with")
    parser.add_argument("--drawn", type=int, default=0, help="cards already drawn from it (resume)")
    parser.add_argument("--decks", type=int, default=DECKS)
    parser.add_argument("--cut-cards-behind", type=int, default=CUT_CARDS_BEHIND)
    parser.add_argument("--stay", action="store_true", help="keep running after the end of stdin")
    parser.set_defaults(handler=run)
