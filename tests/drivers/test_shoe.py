"""The real serial shoe driver against the simulated shoe firmware, over a real pty."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
import tty
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from drivers.shoe import (
    BufferGateChanged,
    CardDrawn,
    CardShoe,
    DoorClosed,
    DoorOpened,
    GateChanged,
    Jam,
    JamCleared,
    MissedCards,
    SerialShoe,
    ShoeCommandError,
    ShoeEvent,
    ShoeOffline,
    ShoeOnline,
    ShoeShuffled,
    ShoeVersionError,
    UnreadableCard,
    port_of,
)
from simulators.shoe import Fault, SimulatedShoe
from simulators.shoe_firmware import GATE_RESERVE, FirmwareIdentity, GateLockedError
from table_runtime.errors import ConfigError
from table_runtime.game.cards import Card

pytestmark = pytest.mark.timeout(60)

LINK_EVENTS = (ShoeOnline, ShoeOffline)
V1 = FirmwareIdentity(protocol_version=1)  # a shoe of the first protocol version: no buffer gate (§3)


def simulated(**options: object) -> SimulatedShoe:
    values: dict[str, object] = {"seed": 7, "heartbeat_interval": 0.1, "retransmit_timeout": 0.2}
    values.update(options)
    return SimulatedShoe(**values)  # type: ignore[arg-type]


@pytest.fixture
async def sim() -> AsyncIterator[SimulatedShoe]:
    async with simulated() as shoe:
        yield shoe


@pytest.fixture
async def shoe(sim: SimulatedShoe) -> AsyncIterator[SerialShoe]:
    async with SerialShoe(sim.url) as driver:
        await expect(driver, ShoeOnline)
        await expect(driver, ShoeShuffled)
        yield driver


async def expect(shoe: SerialShoe, kind: type[ShoeEvent], seconds: float = 10.0) -> ShoeEvent:
    """The next event that is not about the link must be a `kind` (link events of that kind count)."""
    async with asyncio.timeout(seconds):
        while True:
            event = await shoe.next_event()
            if isinstance(event, kind):
                return event
            if not isinstance(event, LINK_EVENTS):
                raise AssertionError(f"expected {kind.__name__}, got {event!r}")


async def cards(shoe: SerialShoe, count: int) -> list[Card]:
    drawn = []
    for _ in range(count):
        event = await expect(shoe, CardDrawn)
        assert isinstance(event, CardDrawn)
        drawn.append(Card.parse(event.code))
    return drawn


async def quiet(shoe: SerialShoe, seconds: float) -> list[ShoeEvent]:
    """Events that arrive within `seconds` (to show nothing more came)."""
    seen: list[ShoeEvent] = []
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(seconds):
            while True:
                seen.append(await shoe.next_event())
    return seen


def test_serial_shoe_is_a_card_shoe() -> None:
    shoe: CardShoe = SerialShoe("serial:///dev/ttyACM0")
    assert shoe.online is False


def test_device_urls() -> None:
    assert port_of("serial:///dev/ttyACM0") == "/dev/ttyACM0"
    assert port_of("/dev/ttyUSB1") == "/dev/ttyUSB1"
    assert port_of("socket://localhost:7000") == "socket://localhost:7000"
    with pytest.raises(ConfigError, match=r"devices\.shoe"):
        port_of("sim://shoe?seed=7")
    with pytest.raises(ConfigError, match="name the port"):
        port_of("serial://")


async def test_identifies_and_reports_cards_in_order(sim: SimulatedShoe) -> None:
    async with SerialShoe(sim.url) as shoe:
        online = await expect(shoe, ShoeOnline)
        assert isinstance(online, ShoeOnline)
        assert online.identity.protocol_version == 2
        assert online.identity.serial_number == "SIM-SHOE-0001"
        assert shoe.identity == online.identity
        loaded = await expect(shoe, ShoeShuffled)
        assert isinstance(loaded, ShoeShuffled)
        assert (loaded.shoe_id, loaded.cards, loaded.cut_position, loaded.stacked) == (1, 312, 260, False)
        drawn = [sim.draw() for _ in range(20)]
        assert await cards(shoe, 20) == drawn
        assert shoe.statistics.bytes_skipped == 0


async def test_a_port_pyserial_cannot_use_is_raised_by_events() -> None:
    async with SerialShoe("socket://") as shoe:
        with pytest.raises(ValueError):
            async with asyncio.timeout(10):
                async for _ in shoe.events():
                    pass


async def test_events_iterator_ends_when_closed(sim: SimulatedShoe) -> None:
    seen: list[ShoeEvent] = []
    async with SerialShoe(sim.url) as shoe:
        await expect(shoe, ShoeShuffled)
        sim.draw()
        await expect(shoe, CardDrawn)
    async with asyncio.timeout(5):
        async for event in shoe.events():
            seen.append(event)
        async for event in shoe.events():  # a second iterator ends at once too
            seen.append(event)
    assert seen == []
    assert not shoe.online


async def test_byte_at_a_time() -> None:
    async with simulated(byte_interval=0.0005) as sim, SerialShoe(sim.url) as shoe:
        await expect(shoe, ShoeShuffled)
        skipped_at_connect = shoe.statistics.bytes_skipped  # the port may open in the middle of a frame
        drawn = [sim.draw() for _ in range(5)]
        assert await cards(shoe, 5) == drawn
        assert shoe.statistics.bytes_skipped == skipped_at_connect


@pytest.mark.parametrize("byte_interval", [None, 0.0002], ids=["whole", "byte-at-a-time"])
@pytest.mark.parametrize("fault", [Fault.CORRUPT, Fault.DROP, Fault.DUPLICATE])
async def test_damaged_dropped_or_doubled_frames_arrive_exactly_once(
    sim: SimulatedShoe, shoe: SerialShoe, fault: Fault, byte_interval: float | None
) -> None:
    sim.byte_interval = byte_interval
    sim.inject(fault)
    drawn = [sim.draw(), sim.draw()]
    assert await cards(shoe, 2) == drawn
    sim.inject(fault)
    drawn = [sim.draw()]  # the damaged frame is the last one: the heartbeat or the shoe's timer recovers it
    assert await cards(shoe, 1) == drawn
    assert not [event for event in await quiet(shoe, 0.5) if not isinstance(event, LINK_EVENTS)]
    if fault is Fault.CORRUPT:
        assert shoe.statistics.bytes_skipped > 0
    if fault is Fault.DUPLICATE:
        assert shoe.statistics.duplicates >= 2
    assert shoe.statistics.missed == 0


async def test_line_noise_between_frames_costs_nothing_but_skipped_bytes(
    sim: SimulatedShoe, shoe: SerialShoe
) -> None:
    noise = random.Random(11)
    drawn: list[Card] = []
    for _ in range(40):
        # Noise may hold SYNC bytes and lengths that make the decoder wait for a frame that is not one.
        sim.write_raw(bytes(noise.choice((0x7E, 0x00, 0x06, 0xFF, noise.randrange(256))) for _ in range(9)))
        drawn.append(sim.draw())
    assert await cards(shoe, 40) == drawn
    assert shoe.statistics.bytes_skipped >= 40 * 9 - 8
    assert shoe.statistics.missed == 0


async def test_gate_command_while_unplugged_is_an_error(sim: SimulatedShoe) -> None:
    async with SerialShoe(sim.url, command_timeout=0.3) as shoe:
        await expect(shoe, ShoeShuffled)
        sim.unplug()
        await expect(shoe, ShoeOffline)
        with pytest.raises(ShoeCommandError, match=r"lock gate.*offline"):
            await shoe.lock_gate()


async def test_delay(sim: SimulatedShoe, shoe: SerialShoe) -> None:
    sim.inject(Fault.DELAY, milliseconds=300)
    drawn = [sim.draw(), sim.draw()]
    assert await cards(shoe, 2) == drawn


async def test_a_frame_the_shoe_lost_is_a_missed_cards_alarm(sim: SimulatedShoe, shoe: SerialShoe) -> None:
    sim.inject(Fault.LOSE)
    lost = sim.draw()
    kept = sim.draw()
    missed = await expect(shoe, MissedCards)
    assert isinstance(missed, MissedCards)
    assert missed.count == 1
    assert await cards(shoe, 1) == [kept]
    lost_events = [e for e in sim.sent_events if isinstance(e, CardDrawn) and e.sequence == missed.first_sequence]
    assert [e.code for e in lost_events] == [lost.code]  # the shoe did report it; the table never saw it
    assert shoe.statistics.missed == 1


async def test_unreadable_card_door_and_jam(sim: SimulatedShoe, shoe: SerialShoe) -> None:
    sim.inject(Fault.UNREADABLE)
    sim.draw()
    unreadable = await expect(shoe, UnreadableCard)
    assert isinstance(unreadable, UnreadableCard) and unreadable.card_number == 1
    sim.inject(Fault.DOOR)
    await expect(shoe, DoorOpened)
    sim.close_door()
    await expect(shoe, DoorClosed)
    sim.inject(Fault.JAM)
    await expect(shoe, Jam)
    sim.clear_jam()
    await expect(shoe, JamCleared)


async def test_gate_lock_and_unlock(sim: SimulatedShoe, shoe: SerialShoe) -> None:
    await shoe.lock_gate()
    changed = await expect(shoe, GateChanged)
    assert isinstance(changed, GateChanged) and changed.locked
    assert sim.firmware.gate_locked and shoe.gate_locked
    await shoe.unlock_gate()
    await expect(shoe, GateChanged)
    assert not sim.firmware.gate_locked


async def test_disconnect_then_back_loses_and_doubles_nothing(sim: SimulatedShoe, shoe: SerialShoe) -> None:
    before = [sim.draw(), sim.draw()]
    assert await cards(shoe, 2) == before
    sim.inject(Fault.DISCONNECT, milliseconds=300)
    while_away = [sim.draw() for _ in range(3)]  # the shoe buffers what it cannot send
    offline = await expect(shoe, ShoeOffline)
    assert isinstance(offline, ShoeOffline) and "disconnected" in offline.reason
    online = await expect(shoe, ShoeOnline)
    assert isinstance(online, ShoeOnline) and online.cards_drawn == 5
    after = [sim.draw()]
    assert await cards(shoe, 4) == while_away + after
    assert not [event for event in await quiet(shoe, 0.5) if isinstance(event, CardDrawn)]
    assert shoe.statistics.connections == 2


async def test_more_cards_away_than_a_version_1_shoe_can_hold_is_a_missed_cards_alarm() -> None:
    """A version-1 shoe (no buffer gate, §3) lets cards out past its buffer: the host says they are missed."""
    async with simulated(buffer_size=2, identity=V1) as sim, SerialShoe(sim.url) as shoe:
        await expect(shoe, ShoeShuffled)
        sim.unplug()
        await expect(shoe, ShoeOffline)
        away = [sim.draw() for _ in range(5)]
        sim.replug()
        missed = await expect(shoe, MissedCards)
        assert isinstance(missed, MissedCards) and (missed.first_sequence, missed.count) == (1, 3)
        assert await cards(shoe, 2) == away[3:]


async def test_a_shoe_whose_resend_buffer_fills_locks_its_gate_until_the_host_acknowledges() -> None:
    """§3 (version 2): the host acknowledges nothing (as while its journal cannot be written); once the shoe's
    buffer is full its gate locks, no card leaves, and the host hears so at once; its acknowledgements unlock
    the gate, and every card drawn reached the host exactly once."""
    async with simulated(buffer_size=32) as sim, SerialShoe(sim.url) as shoe:
        await expect(shoe, ShoeShuffled)  # held, unacknowledged, like every card after it
        drawn: list[Card] = []
        with pytest.raises(GateLockedError, match=r"resend buffer is full \(25 of 32 events unacknowledged\)"):
            for _ in range(64):
                drawn.append(sim.draw())
        assert len(drawn) == 32 - GATE_RESERVE  # SHOE_LOADED and 24 cards: 7 slots free, fewer than the reserve
        events: list[ShoeEvent] = []
        async with asyncio.timeout(10):
            while not isinstance(event := await shoe.next_event(), BufferGateChanged):
                events.append(event)
        assert (event.locked, event.held, event.capacity) == (True, 25, 32)
        assert [item.code for item in events if isinstance(item, CardDrawn)] == [card.code for card in drawn]
        # The shoe resends what is unacknowledged and repeats BUFFER_GATE with each heartbeat: no new event.
        assert await quiet(shoe, 0.5) == []
        with pytest.raises(GateLockedError):
            sim.draw()
        assert sim.firmware.cards_drawn == len(drawn)  # the dealer got no card

        last = [item for item in events if isinstance(item, CardDrawn)][-1]
        shoe.acknowledge(last)  # the journal took them: everything up to the last card is acknowledged
        unlocked = await expect(shoe, BufferGateChanged)
        assert isinstance(unlocked, BufferGateChanged) and (unlocked.locked, unlocked.held) == (False, 0)
        more = [sim.draw() for _ in range(3)]
        assert await cards(shoe, 3) == more
        sent = [item.code for item in sim.sent_events if isinstance(item, CardDrawn)]
        assert sent == [card.code for card in [*drawn, *more]]  # every card out of the shoe was sent, once


async def test_unplug_replug_many_times(sim: SimulatedShoe, shoe: SerialShoe) -> None:
    expected: list[Card] = []
    seen: list[ShoeEvent] = []

    async def until(kind: type[ShoeEvent]) -> None:
        async with asyncio.timeout(10):
            while not isinstance(event := await shoe.next_event(), kind):
                seen.append(event)
            seen.append(event)

    for _ in range(3):
        sim.unplug()
        await until(ShoeOffline)
        assert not sim.link.exists()
        expected += [sim.draw(), sim.draw()]
        sim.replug()
        await until(ShoeOnline)
        expected.append(sim.draw())
    async with asyncio.timeout(10):
        while len([event for event in seen if isinstance(event, CardDrawn)]) < len(expected):
            seen.append(await shoe.next_event())
    seen += await quiet(shoe, 0.3)
    assert [event.code for event in seen if isinstance(event, CardDrawn)] == [card.code for card in expected]
    assert [type(event) for event in seen if isinstance(event, LINK_EVENTS)] == [ShoeOffline, ShoeOnline] * 3


async def test_silent_shoe_goes_offline_then_comes_back(sim: SimulatedShoe) -> None:
    async with SerialShoe(sim.url, heartbeat_timeout=0.5) as shoe:
        await expect(shoe, ShoeShuffled)
        sim.inject(Fault.DELAY, milliseconds=2000)
        card = sim.draw()
        offline = await expect(shoe, ShoeOffline)
        assert isinstance(offline, ShoeOffline) and "no heartbeat" in offline.reason
        assert not shoe.online
        await expect(shoe, ShoeOnline)
        assert await cards(shoe, 1) == [card]


async def test_offline_at_start_then_the_shoe_appears(tmp_path: Path) -> None:
    link = tmp_path / "ttySHOE"
    async with SerialShoe(str(link), backoff_max=0.1) as shoe:
        offline = await expect(shoe, ShoeOffline)
        assert isinstance(offline, ShoeOffline) and "cannot open" in offline.reason
        async with simulated(link=link) as sim:
            await expect(shoe, ShoeOnline)
            await expect(shoe, ShoeShuffled)
            drawn = sim.draw()
            assert await cards(shoe, 1) == [drawn]


async def test_a_device_that_never_answers_identify_is_offline(tmp_path: Path) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    link = tmp_path / "ttyMUTE"
    link.symlink_to(os.ttyname(slave))
    try:
        async with SerialShoe(str(link), identify_timeout=0.3, identify_interval=0.1, backoff_max=0.2) as shoe:
            offline = await expect(shoe, ShoeOffline)
            assert isinstance(offline, ShoeOffline) and "no answer to IDENTIFY within 0.3 s" in offline.reason
            assert not shoe.online
            async with asyncio.timeout(5):
                asked = b""
                while asked.count(b"\x7e") < 2:  # it keeps asking, with backoff
                    await asyncio.sleep(0.05)
                    with contextlib.suppress(BlockingIOError):
                        asked += os.read(master, 4096)
    finally:
        os.close(master)
        os.close(slave)


async def test_unknown_protocol_version_is_refused() -> None:
    async with simulated(identity=FirmwareIdentity(protocol_version=3)) as sim, SerialShoe(sim.url) as shoe:
        with pytest.raises(ShoeVersionError, match=r"protocol version 3; this host speaks versions 1, 2 only"):
            async with asyncio.timeout(10):
                async for _ in shoe.events():
                    pass
        assert not shoe.online
        with pytest.raises(ShoeVersionError):  # said again, never a hang
            await shoe.next_event()


async def test_a_restarted_shoe_resumes_the_same_seeded_shoe(tmp_path: Path) -> None:
    link = tmp_path / "ttySHOE"
    async with SerialShoe(str(link), backoff_max=0.1) as shoe:
        async with simulated(link=link) as first:
            await expect(shoe, ShoeShuffled)
            seen = [first.draw() for _ in range(4)]
            assert await cards(shoe, 4) == seen
        await expect(shoe, ShoeOffline)
        # Power cut: a new boot, created from what the journal knows, continues the same shoe.
        async with simulated(link=link, shoe_number=1, cards_already_drawn=4) as second:
            online = await expect(shoe, ShoeOnline)
            assert isinstance(online, ShoeOnline) and online.cards_drawn == 4
            next_card = second.draw()
            event = await expect(shoe, CardDrawn)
            assert isinstance(event, CardDrawn) and event.card_number == 5 and event.code == next_card.code
    async with simulated() as fresh:
        assert [fresh.draw() for _ in range(5)] == [*seen, next_card]



@pytest.mark.slow
async def test_a_stalled_process_reads_the_heartbeats_that_waited_before_calling_the_shoe_silent(
        tmp_path: Path) -> None:
    """The whole host process stalls (SIGSTOP, a swap storm) longer than the heartbeat timeout while the shoe, a
    device of its own (here `table-sim shoe` in its own process), kept talking: its heartbeats wait on the port.
    The overdue watchdog must not call the shoe silent before they are read."""
    link = tmp_path / "ttySHOE"
    device = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "from simulators.cli import main; main()", "shoe", "--link", str(link),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    try:
        assert device.stdout is not None
        async with asyncio.timeout(20):
            assert (await device.stdout.readline()).startswith(b"ready")
        offline = 0
        for _ in range(4):
            async with SerialShoe(f"serial://{link}", heartbeat_timeout=0.8) as shoe:
                await expect(shoe, ShoeOnline)
                stopper = await asyncio.create_subprocess_exec(sys.executable, "-c", STOP_PARENT, str(os.getpid()))
                seen = await quiet(shoe, 2.5)
                async with asyncio.timeout(10):
                    await stopper.wait()
                offline += sum(isinstance(event, ShoeOffline) for event in seen)
        assert offline == 0
    finally:
        device.kill()
        await device.wait()


STOP_PARENT = """
import os, signal, sys, time
pid = int(sys.argv[1])
time.sleep(0.2)
os.kill(pid, signal.SIGSTOP)
time.sleep(1.6)
os.kill(pid, signal.SIGCONT)
"""
