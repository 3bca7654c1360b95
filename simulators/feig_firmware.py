"""What a simulated FEIG ISO-Host reader answers, and how long it takes (docs/protocols/feig.md).

`FeigFirmware` holds the table's side of the reader: the chips lying on each antenna (or multiplexer channel),
which tags are quiet since the last RF reset, antenna faults and the faults queued by tests. `answer(frame)`
returns the reply frame (None: the reader stays silent) and the seconds the reader needs for it, from a timing
model of ISO 15693 at its high data rate (`Timing`): an inventory costs a fixed time per antenna scanned plus a
time per tag, a field with more tags than a reply holds answers page by page (STATUS 0x94, more data), and a field
with more tags than the anticollision resolves in time answers 0x83 (RF communication error).

The faults a hostile or broken reader shows, for tests and the bench: `fail_next` (a STATUS alone), `go_silent`
(requests it never saw), `lose_inventory_replies` (inventories done, the tags quiet, the reply lost on the line),
`slow_down` (every reply later than the host waits), `more_data_forever` (every inventory page says 0x94, more
data); another reader answering on the same bus is the served reader's (simulators/feig_reader.py `add_impostor`).

Thread-safe: the serving thread answers while tests and the bench place chips.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from firmware_bridge.feig import (
    DEVICE_ID_MODE,
    Blocks,
    Command,
    DeviceId,
    Frame,
    InventoryMode,
    InventoryPage,
    IsoCommand,
    Reply,
    Sighting,
    SoftwareVersion,
    Status,
    TagRecord,
)
from firmware_bridge.rfid import BlockStatus
from simulators.antenna_chips import AntennaChips

BLOCK_SIZE = 4  # bytes per block of the chips' ISO 15693 memory
MUX_OUTPUT = 1  # the reader output the multiplexer hangs on


@dataclass(frozen=True, slots=True, kw_only=True)
class Timing:
    """Seconds the reader spends (ISO 15693 high data rate, 16-slot anticollision; estimates, see feig.md 5)."""

    inventory_per_antenna: float = 0.012  # 16 empty slots and the RF settling on one antenna
    per_tag: float = 0.0025  # a tag's reply slot and the collisions it causes
    read_blocks: float = 0.006  # one addressed Read Multiple Blocks of two blocks
    rf_reset: float = 0.003
    command: float = 0.001  # any other command
    field_limit: int = 120  # more tags than this in one field: the anticollision gives up (0x83)

    def scaled(self, factor: float) -> Timing:
        return Timing(inventory_per_antenna=self.inventory_per_antenna * factor, per_tag=self.per_tag * factor,
                      read_blocks=self.read_blocks * factor, rf_reset=self.rf_reset * factor,
                      command=self.command * factor, field_limit=self.field_limit)


INSTANT = Timing().scaled(0.0)


class FeigFirmware(AntennaChips):
    """The reader's firmware: antennas, chips, quiet tags, faults; `answer` one request at a time."""

    def __init__(self, antennas: Mapping[int, str] | None = None, *, address: int = 0, mux: bool = False,
                 outputs: int = 4, page_tags: int = 24, timing: Timing | None = None, miss_rate: float = 0.0,
                 seed: int = 0, firmware: SoftwareVersion | None = None,
                 device_id: int | None = 0x12345678) -> None:
        super().__init__(antennas, antennas or {})
        self.address = address
        self.mux = mux
        self.outputs = outputs
        self.page_tags = page_tags
        self.timing = timing if timing is not None else Timing()
        self.miss_rate = miss_rate
        self.version = firmware or SoftwareVersion(revision=0x0303, development=0, hardware_type=0x44,
                                                   reader_type=0x53, transponders=0x0008)
        self.device_id = device_id
        self._random = random.Random(seed)
        self._quiet: set[str] = set()  # UIDs that answered an inventory since the last RF reset
        self._faulty: set[int] = set()
        self._failures: list[int] = []  # STATUS to answer the next requests with
        self._silent = 0  # requests to leave unanswered
        self._lost_inventories = 0  # inventories whose reply is lost after the tags answered
        self.delay = 0.0  # seconds added to every reply (a reader slower than the host's timeout)
        self.endless = False  # every inventory page answers 0x94 (more data), for ever
        self._pages: list[tuple[TagRecord, ...]] = []  # what the last inventory still has to tell (0x94)
        self.inventories = 0
        self.requests = 0

    # -- the table, as scripts and simulated players see it --------------------------------------
    def antenna(self, where: int | str) -> int:
        antenna = self.zones[where] if isinstance(where, str) else where
        if antenna not in self._chips:
            self._chips[antenna] = {}
        return antenna

    def _left_field(self, uids: Iterable[str]) -> None:
        self._quiet.difference_update(uids)  # it left a field: it wakes up

    def set_antenna_fault(self, where: int | str, faulty: bool = True) -> None:
        """The antenna's cable cut or detuned: an inventory that uses it answers 0x84 (RF warning)."""
        with self._lock:
            (self._faulty.add if faulty else self._faulty.discard)(self.antenna(where))

    def fail_next(self, status: int, count: int = 1) -> None:
        """The next `count` requests are answered with `status` alone (0x0F busy, 0x02 data false, ...)."""
        with self._lock:
            self._failures += [status] * count

    def go_silent(self, count: int = 1) -> None:
        """The next `count` requests get no answer at all (as after a framing error the reader did not see)."""
        with self._lock:
            self._silent += count

    def lose_inventory_replies(self, count: int = 1) -> None:
        """The next `count` inventories are done (the tags that answered go quiet) but their reply is lost on the
        line: the host must ask again from a new RF reset, or read the quiet tags as an empty field (0: none)."""
        with self._lock:
            self._lost_inventories = count

    def slow_down(self, seconds: float) -> None:
        """Every reply leaves `seconds` later than the timing model says (0: back to normal)."""
        with self._lock:
            self.delay = seconds

    def more_data_forever(self, endless: bool = True) -> None:
        """Every inventory page answers 0x94 (more data), repeating its last page: a host that asks while it is told
        to never ends its scan."""
        with self._lock:
            self.endless = endless

    # -- the protocol -----------------------------------------------------------------------------
    def answer(self, frame: Frame, *, hostile: bool = False) -> tuple[Frame | None, float]:
        """The reply to one request frame and the seconds the reader takes; None: the reader stays silent.
        `hostile`: answer whatever COM-ADR the request names (another reader on the bus that should not)."""
        with self._lock:
            self.requests += 1
            if frame.address not in (self.address, 0xFF) and not hostile:
                return None, 0.0  # another reader's address on the bus
            if self._silent:
                self._silent -= 1
                return None, 0.0
            reply, seconds = self._answer(frame)
            seconds += self.delay
            if self._lost_inventories and frame.command == Command.ISO_HOST \
                    and frame.data[:1] == bytes((IsoCommand.INVENTORY,)):
                self._lost_inventories -= 1
                return None, seconds
        return reply.to_frame(advanced=frame.advanced), seconds

    def _reply(self, frame: Frame, status: int, data: bytes = b"") -> Reply:
        return Reply(address=self.address, command=frame.command, status=status, data=data)

    def _answer(self, frame: Frame) -> tuple[Reply, float]:
        timing = self.timing
        if self._failures:
            return self._reply(frame, self._failures.pop(0)), timing.command
        command, data = frame.command, frame.data
        if command == Command.SOFTWARE_VERSION:
            return self._reply(frame, Status.OK, self.version.to_data()), timing.command
        if command == Command.READER_INFO and self.device_id is not None:  # None: an older reader without 0x66
            if len(data) != 1:
                return self._reply(frame, Status.LENGTH_ERROR), timing.command
            if data[0] != DEVICE_ID_MODE:
                return self._reply(frame, Status.PARAMETER_RANGE), timing.command
            return self._reply(frame, Status.OK, DeviceId(device_id=self.device_id).to_data()), timing.command
        if command == Command.RF_RESET:
            self._quiet.clear()
            self._pages = []
            return self._reply(frame, Status.OK), timing.rf_reset
        if command == Command.RF_OUTPUT:
            if len(data) != 1:
                return self._reply(frame, Status.LENGTH_ERROR), timing.command
            return self._reply(frame, Status.OK), timing.command
        if command == Command.ISO_HOST and data[:1] == bytes((IsoCommand.INVENTORY,)):
            return self._inventory(frame)
        if command == Command.ISO_HOST and data[:1] == bytes((IsoCommand.READ_MULTIPLE_BLOCKS,)):
            return self._read_blocks(frame)
        return self._reply(frame, Status.UNKNOWN_COMMAND), timing.command

    def _inventory(self, frame: Frame) -> tuple[Reply, float]:
        timing, data = self.timing, frame.data
        if len(data) < 2:
            return self._reply(frame, Status.LENGTH_ERROR), timing.command
        mode = data[1]
        with_antennas = bool(mode & InventoryMode.ANTENNA)
        if len(data) != (3 if with_antennas else 2):
            return self._reply(frame, Status.LENGTH_ERROR), timing.command
        if mode & InventoryMode.MORE:
            return self._page(frame, with_antennas, 0.0)
        self.inventories += 1
        selected = data[2] if with_antennas else 1
        scanned = self._scanned(selected)
        if not scanned:
            return self._reply(frame, Status.LENGTH_ERROR if selected >> self.outputs else Status.NO_TRANSPONDER), \
                timing.command
        seconds = timing.inventory_per_antenna * len(scanned)
        if self._faulty & set(scanned):
            return self._reply(frame, Status.RF_WARNING), seconds
        found: list[TagRecord] = []
        in_field = 0
        for antenna in scanned:
            chips = self._chips.get(antenna, {})
            in_field += len(chips)
            for uid in chips:
                if uid in self._quiet or (self.miss_rate and self._random.random() < self.miss_rate):
                    continue
                found.append(TagRecord(uid=uid, sightings=(Sighting(antenna=antenna, rssi=60),)))
        seconds += timing.per_tag * in_field
        if in_field > timing.field_limit:
            return self._reply(frame, Status.RF_COMMUNICATION_ERROR), seconds
        self._quiet.update(tag.uid for tag in found)  # they answered: quiet until an RF reset
        self._pages = [tuple(found[at : at + self.page_tags]) for at in range(0, len(found), self.page_tags)]
        return self._page(frame, with_antennas, seconds)

    def _scanned(self, selected: int) -> list[int]:
        """The antennas an inventory on the outputs `selected` reads: the outputs, or every multiplexer channel."""
        if self.mux:
            return sorted(self._chips) if selected & (1 << (MUX_OUTPUT - 1)) else []
        return [output for output in range(1, self.outputs + 1) if selected & (1 << (output - 1))]

    def _page(self, frame: Frame, with_antennas: bool, seconds: float) -> tuple[Reply, float]:
        if self.endless:
            page = self._pages[0] if self._pages else ()
            status: Status = Status.MORE_DATA
        elif not self._pages:
            return self._reply(frame, Status.NO_TRANSPONDER), seconds + self.timing.command
        else:
            page = self._pages.pop(0)
            status = Status.MORE_DATA if self._pages else Status.OK
        records = page if with_antennas else tuple(TagRecord(uid=tag.uid) for tag in page)
        return self._reply(frame, status, InventoryPage(tags=records).to_data(antennas=with_antennas)), seconds

    def _read_blocks(self, frame: Frame) -> tuple[Reply, float]:
        timing, data = self.timing, frame.data
        if len(data) != 12 or data[1] != 0x01:
            return self._reply(frame, Status.LENGTH_ERROR), timing.command
        uid, first, count = data[2:10].hex().upper(), data[10], data[11]
        chip = next((stack[uid] for stack in self._chips.values() if uid in stack), None)
        if chip is None:
            return self._reply(frame, Status.NO_TRANSPONDER), timing.read_blocks
        if chip.block_status != BlockStatus.OK:
            return self._reply(frame, Status.ISO15693_ERROR), timing.read_blocks
        memory = chip.to_bytes()[9:]  # the data block of docs/protocols/rfid.md 3.4, two 4-byte blocks
        blocks = [memory[n * BLOCK_SIZE : (n + 1) * BLOCK_SIZE] for n in range(first, first + count)]
        if first + count > len(memory) // BLOCK_SIZE:
            return self._reply(frame, Status.ISO15693_ERROR), timing.read_blocks
        return self._reply(frame, Status.OK, Blocks(size=BLOCK_SIZE, blocks=tuple(blocks)).to_data()), \
            timing.read_blocks
