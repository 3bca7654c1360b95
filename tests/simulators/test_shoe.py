"""The simulated shoe on a real pty, seen by plain pyserial and through the `table-sim shoe` console."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from firmware_bridge.shoe import (
    CardDrawn,
    Frame,
    FrameDecoder,
    Heartbeat,
    Hello,
    Identify,
    host_frame,
    parse_shoe_frame,
)
from simulators.shoe import Fault, SimulatedShoe, read_stack
from simulators.shoe_console import execute
from simulators.shoe_firmware import shuffled_shoe
from table_runtime.errors import CardCodeError, ConfigError
from table_runtime.game.cards import parse_cards

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def sim() -> Iterator[SimulatedShoe]:
    with SimulatedShoe(seed=7, announce=False, heartbeat_interval=5, retransmit_timeout=5) as shoe:
        yield shoe


@pytest.fixture
def port(sim: SimulatedShoe) -> Iterator[serial.Serial]:
    with serial.serial_for_url(str(sim.link), baudrate=115200, timeout=0.05) as opened:
        opened.read(4096)  # whatever the shoe said before we listened
        yield opened


def read_frames(port: serial.Serial, count: int, decoder: FrameDecoder | None = None) -> list[Frame]:
    decoder = decoder or FrameDecoder()
    frames: list[Frame] = []
    for _ in range(400):
        # heartbeats and the BUFFER_GATE status that follows each aside
        frames += [f for f in decoder.feed(port.read(256)) if f.message_type not in (0x02, 0x03)]
        if len(frames) >= count:
            return frames
    raise AssertionError(f"only {len(frames)} of {count} frames arrived")


def test_link_is_a_pty_any_serial_tool_opens(sim: SimulatedShoe, port: serial.Serial) -> None:
    assert sim.link.is_symlink()
    assert os.path.realpath(sim.link).startswith("/dev/pts/")
    port.write(host_frame(Identify(), 1).to_bytes())
    (frame,) = read_frames(port, 1)
    hello = parse_shoe_frame(frame)
    assert isinstance(hello, Hello) and hello.protocol_version == 2 and hello.shoe_id == 1


def test_a_drawn_card_is_one_frame_on_the_wire(sim: SimulatedShoe, port: serial.Serial) -> None:
    card = sim.draw()
    (frame,) = read_frames(port, 1)
    event = parse_shoe_frame(frame)
    assert isinstance(event, CardDrawn) and event.code == card.code == shuffled_shoe(7, 1)[0].code


def test_heartbeats_carry_the_next_sequence() -> None:
    with (
        SimulatedShoe(seed=1, heartbeat_interval=0.05) as sim,
        serial.serial_for_url(str(sim.link), timeout=0.05) as port,
    ):
        decoder = FrameDecoder()
        for _ in range(200):
            beats = [parse_shoe_frame(f) for f in decoder.feed(port.read(256)) if f.message_type == 0x02]
            if beats:
                assert isinstance(beats[0], Heartbeat) and beats[0].next_sequence == 1  # after SHOE_LOADED
                return
        raise AssertionError("no heartbeat")


def test_fault_corrupt_puts_a_bad_frame_on_the_wire(sim: SimulatedShoe, port: serial.Serial) -> None:
    decoder = FrameDecoder()
    sim.inject(Fault.CORRUPT)
    sim.draw()
    second = sim.draw()
    (frame,) = read_frames(port, 1, decoder)
    event = parse_shoe_frame(frame)
    assert isinstance(event, CardDrawn) and event.code == second.code
    assert decoder.bytes_skipped > 0


def test_fault_duplicate_and_drop(sim: SimulatedShoe, port: serial.Serial) -> None:
    sim.inject(Fault.DUPLICATE)
    sim.draw()
    sim.inject(Fault.DROP)
    sim.draw()
    sim.draw()
    assert [frame.sequence for frame in read_frames(port, 3)] == [0, 0, 2]


def test_unplug_removes_the_device_and_replug_brings_a_new_one(sim: SimulatedShoe) -> None:
    before = os.path.realpath(sim.link)
    with serial.serial_for_url(str(sim.link), timeout=0.05) as port:
        sim.unplug()
        assert not sim.link.exists() and not sim.plugged
        with pytest.raises(serial.SerialException):
            port.read(10)
    sim.replug()
    assert sim.link.exists() and sim.plugged
    assert os.path.realpath(sim.link).startswith("/dev/pts/") and before.startswith("/dev/pts/")
    with serial.serial_for_url(str(sim.link), timeout=0.05) as port:
        port.write(host_frame(Identify(), 1).to_bytes())
        (frame,) = read_frames(port, 1)
        assert isinstance(parse_shoe_frame(frame), Hello)


def test_console_commands(sim: SimulatedShoe, tmp_path: Path) -> None:
    assert execute(sim, "draw 2").startswith("drew JD 6S (2 drawn, 310 left)")
    assert execute(sim, "shuffle") == "shuffled shoe 2"
    stack = tmp_path / "stack.txt"
    stack.write_text("# a scripted round\nAS, KH\n10d 5C  # comment\n", encoding="utf-8")
    assert execute(sim, f"load {stack}") == "loaded shoe 3: 4 stacked cards"
    assert execute(sim, "draw 4").startswith("drew AS KH TD 5C")
    assert execute(sim, "draw").startswith("error: shoe 3 is empty")
    assert execute(sim, "fault delay 10") == "fault delay 10 ms"
    assert execute(sim, "fault sideways").startswith("error:")
    assert execute(sim, "door open") == "door open" and sim.firmware.door_open
    assert "door open" in execute(sim, "status")
    assert execute(sim, "fly").startswith("error: unknown command")


def test_read_stack_names_the_bad_line(tmp_path: Path) -> None:
    stack = tmp_path / "stack.txt"
    stack.write_text("AS\nZZ\n", encoding="utf-8")
    with pytest.raises(CardCodeError, match=r"stack\.txt:2"):
        read_stack(stack)
    stack.write_text("AS 2H\n", encoding="utf-8")
    assert read_stack(stack) == parse_cards("AS 2H")


def test_table_sim_shoe_gives_a_device_path(tmp_path: Path) -> None:
    link = tmp_path / "ttySHOE"
    stack = tmp_path / "stack.txt"
    stack.write_text("QS QH\n", encoding="utf-8")
    command = [sys.executable, "-m", "simulators.cli", "shoe", "--link", str(link), "--stack", str(stack)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdin is not None and process.stdout is not None
        try:
            assert process.stdout.readline().strip() == f"ready {link}"
            with serial.serial_for_url(str(link), timeout=0.05) as port:
                port.read(4096)
                process.stdin.write("draw\n")
                process.stdin.flush()
                assert process.stdout.readline().startswith("drew QS")
                (frame,) = read_frames(port, 1)
                event = parse_shoe_frame(frame)
                assert isinstance(event, CardDrawn) and event.code == "QS"
            process.stdin.write("quit\n")
            process.stdin.flush()
            assert process.wait(timeout=10) == 0
        finally:
            if process.poll() is None:
                process.kill()
    assert not link.exists()


def test_simulated_shoe_from_configuration_url(tmp_path: Path) -> None:
    link = tmp_path / "ttySHOE"
    shoe = SimulatedShoe.from_url(f"sim://shoe?seed=7&shoe=2&drawn=3&link={link}")
    assert (shoe.firmware.seed, shoe.firmware.shoe_id, shoe.firmware.cards_drawn) == (7, 2, 3)
    assert shoe.url == f"serial://{link}"
    assert shoe.firmware.remaining == tuple(shuffled_shoe(7, 2)[3:])
    with pytest.raises(ConfigError, match="unknown option colour"):
        SimulatedShoe.from_url("sim://shoe?colour=red")
    with pytest.raises(ConfigError, match="seed must be a whole number"):
        SimulatedShoe.from_url("sim://shoe?seed=x")


def test_a_simulated_shoe_can_be_started_again_after_stop() -> None:
    shoe = SimulatedShoe(seed=2, announce=False)
    for _ in range(2):
        with shoe, serial.serial_for_url(str(shoe.link), timeout=0.05) as port:
            port.write(host_frame(Identify(), 1).to_bytes())
            (frame,) = read_frames(port, 1)
            assert isinstance(parse_shoe_frame(frame), Hello)
        assert not shoe.link.exists()
