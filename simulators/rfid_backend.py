"""A simulated RFID chip reader behind a pyusb backend, so the real driver runs in CI.

`RfidBackend` implements `usb.backend.IBackend`: `usb.core.find(backend=...)`
finds the simulated readers it holds while they are plugged in, and the real
driver talks to them through pyusb's bulk transfers. `SimulatedReader` is the
reader's firmware (docs/protocols/rfid.md): chips are placed and removed per
zone (or antenna) by test scripts or simulated players; a seeded miss rate makes
tags flicker; counterfeit, void, stolen or mismatched chips are just tags the
registry does not agree with; `unplug()` and `replug()` pull the cable.
"""

from __future__ import annotations

import array
import errno
import random
import threading
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import usb.backend
import usb.core

from firmware_bridge.rfid import (
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    AntennaReport,
    AntennaStatus,
    ErrorCode,
    ErrorReply,
    FrameDecoder,
    Identify,
    Identity,
    Inventory,
    InventoryResult,
    Message,
    MessageError,
    decode_message,
    encode,
)
from simulators.antenna_chips import AntennaChips
from simulators.usb_descriptors import (
    Descriptor,
    configuration,
    copy_string,
    endpoint,
    interface,
    no_device,
    pipe_error,
)

SIM_VENDOR_ID = 0x1209
SIM_PRODUCT_ID = 0x7AB1
OUT_ENDPOINT = 0x01
IN_ENDPOINT = 0x81


def simulated_reader(url: str, antenna_zones: Mapping[int, str]) -> tuple[SimulatedReader, RfidBackend]:
    """`sim://reader?seed=1&miss_rate=0.05&serial=SIM00001&antennas=21`: a reader and the backend holding it."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "sim":
        raise ValueError(f"{url}: not a sim:// URL")
    query = dict(urllib.parse.parse_qsl(parts.query))
    reader = SimulatedReader(antenna_zones, seed=int(query.get("seed", "0")),
                             miss_rate=float(query.get("miss_rate", "0")), serial=query.get("serial", "SIM00001"),
                             antennas=int(query.get("antennas", str(max(21, max(antenna_zones, default=0) + 1)))))
    return reader, RfidBackend([reader])


class SimulatedReader(AntennaChips):
    """One reader: its antennas and the chips on them, and its firmware's answers.

    Thread-safe: the driver's thread transfers while the test places chips.
    """

    def __init__(self, antenna_zones: Mapping[int, str] | None = None, *, antennas: int = 21,
                 serial: str = "SIM00001", firmware: str = "sim-1.0", major: int = PROTOCOL_MAJOR,
                 minor: int = PROTOCOL_MINOR, miss_rate: float = 0.0, seed: int = 0, max_tags: int = 64,
                 vendor_id: int = SIM_VENDOR_ID, product_id: int = SIM_PRODUCT_ID) -> None:
        super().__init__(antenna_zones, range(antennas))
        self.antenna_count = antennas
        self.serial = serial
        self.firmware = firmware
        self.major = major
        self.minor = minor
        self.miss_rate = miss_rate
        self.max_tags = max_tags
        self.vendor_id = vendor_id
        self.product_id = product_id
        self._random = random.Random(seed)
        self._status: dict[int, AntennaStatus] = {}
        self._plugged = True
        self.generation = 0  # bumped by each replug: handles of an older plug are dead
        self._errors: list[ErrorCode] = []
        self.inventories = 0  # how many inventories the firmware answered

    # -- the table, as scripts and simulated players see it --------------------------------------
    def antenna(self, where: int | str) -> int:
        antenna = self.zones[where] if isinstance(where, str) else where
        if not 0 <= antenna < self.antenna_count:
            raise ValueError(f"antenna {antenna} is not 0..{self.antenna_count - 1}")
        return antenna

    def _left_field(self, uids: Iterable[str]) -> None:
        return None  # the firmware keeps nothing per chip between inventories

    def set_antenna_status(self, where: int | str, status: AntennaStatus) -> None:
        with self._lock:
            self._status[self.antenna(where)] = status

    def fail_next(self, code: ErrorCode, count: int = 1) -> None:
        """Answer the next `count` requests with an ERROR of `code` (section 3.5)."""
        with self._lock:
            self._errors += [code] * count

    @property
    def plugged(self) -> bool:
        return self._plugged

    def unplug(self) -> None:
        with self._lock:
            self._plugged = False

    def replug(self) -> None:
        with self._lock:
            self._plugged = True
            self.generation += 1

    # -- the firmware ----------------------------------------------------------------------------
    def answer(self, request: Message) -> Message:
        """The reply to one request (docs/protocols/rfid.md, section 3)."""
        with self._lock:
            error = self._errors.pop(0) if self._errors else None
        if error is not None:
            return ErrorReply(code=error, text=f"simulated {error.name.lower()}")
        if isinstance(request, Identify):
            return Identity(major=self.major, minor=self.minor, antennas=self.antenna_count,
                            max_tags=self.max_tags, firmware=self.firmware, serial=self.serial)
        if isinstance(request, Inventory):
            if not request.antennas or max(request.antennas) >= self.antenna_count:
                return ErrorReply(code=ErrorCode.BAD_REQUEST, text=f"antennas {request.antennas}")
            return InventoryResult(reports=tuple(self._report(antenna) for antenna in request.antennas))
        return ErrorReply(code=ErrorCode.UNKNOWN_TYPE, text=f"type 0x{request.TYPE:02X} is not a request")

    def _report(self, antenna: int) -> AntennaReport:
        with self._lock:
            self.inventories += 1
            status = self._status.get(antenna, AntennaStatus.OK)
            if status in (AntennaStatus.OPEN, AntennaStatus.SHORT):
                return AntennaReport(antenna=antenna, status=status)
            miss = self.miss_rate
            tags = [tag for tag in self._chips[antenna].values() if not (miss and self._random.random() < miss)]
        if len(tags) > self.max_tags:
            tags, status = tags[: self.max_tags], AntennaStatus.TOO_MANY_TAGS
        return AntennaReport(antenna=antenna, status=status, tags=tuple(tags))


@dataclass(frozen=True, slots=True)
class _Plugged:
    """A reader as the bus saw it at one plug-in: stale once it is pulled out."""

    reader: SimulatedReader
    generation: int


@dataclass(slots=True)
class _Handle:
    reader: SimulatedReader
    generation: int
    decoder: FrameDecoder = field(default_factory=FrameDecoder)
    replies: bytearray = field(default_factory=bytearray)
    ready: threading.Condition = field(default_factory=threading.Condition)


class RfidBackend(usb.backend.IBackend):  # type: ignore[misc]
    """A pyusb backend whose only devices are simulated chip readers."""

    def __init__(self, readers: Iterable[SimulatedReader] = ()) -> None:
        super().__init__()
        self.readers: list[SimulatedReader] = list(readers)

    def add(self, reader: SimulatedReader) -> SimulatedReader:
        self.readers.append(reader)
        return reader

    # -- enumeration and descriptors -------------------------------------------------------------
    def enumerate_devices(self) -> Iterator[_Plugged]:
        return iter([_Plugged(reader, reader.generation) for reader in self.readers if reader.plugged])

    def get_parent(self, dev: _Plugged) -> None:
        return None

    def get_device_descriptor(self, plugged: _Plugged) -> Descriptor:
        dev = plugged.reader
        return Descriptor({
            "bLength": 18, "bDescriptorType": 1, "bcdUSB": 0x0200, "bDeviceClass": 0, "bDeviceSubClass": 0,
            "bDeviceProtocol": 0, "bMaxPacketSize0": 64, "idVendor": dev.vendor_id, "idProduct": dev.product_id,
            "bcdDevice": 0x0100, "iManufacturer": 1, "iProduct": 2, "iSerialNumber": 3, "bNumConfigurations": 1,
            "address": 2 + self.readers.index(dev), "bus": 1, "port_number": 1 + self.readers.index(dev),
            "port_numbers": (1 + self.readers.index(dev),), "speed": 3,
        })

    def get_configuration_descriptor(self, dev: _Plugged, config: int) -> Descriptor:
        return configuration()

    def get_interface_descriptor(self, dev: _Plugged, intf: int, alt: int, config: int) -> Descriptor:
        return interface(intf, alt)

    def get_endpoint_descriptor(self, dev: _Plugged, ep: int, intf: int, alt: int,
                                config: int) -> Descriptor:
        return endpoint(ep, out_address=OUT_ENDPOINT, in_address=IN_ENDPOINT)

    # -- the device handle -----------------------------------------------------------------------
    def open_device(self, dev: _Plugged) -> _Handle:
        if not dev.reader.plugged or dev.generation != dev.reader.generation:
            raise no_device()
        return _Handle(dev.reader, dev.generation)

    def close_device(self, dev_handle: _Handle) -> None:
        return None

    def _alive(self, handle: _Handle) -> None:
        if not handle.reader.plugged or handle.generation != handle.reader.generation:
            raise no_device()

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        self._alive(dev_handle)

    def get_configuration(self, dev_handle: _Handle) -> int:
        self._alive(dev_handle)
        return 1

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        self._alive(dev_handle)

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        self._alive(dev_handle)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        self._alive(dev_handle)

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        self._alive(dev_handle)

    def reset_device(self, dev_handle: _Handle) -> None:
        self._alive(dev_handle)

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        return False

    def ctrl_transfer(self, dev_handle: _Handle, bmRequestType: int, bRequest: int, wValue: int,
                      wIndex: int, data: array.array[int], timeout: int) -> int:
        self._alive(dev_handle)
        reader = dev_handle.reader
        strings = {1: "Open Table", 2: "Chip reader (simulated)", 3: reader.serial}
        return copy_string(bmRequestType, bRequest, wValue, data, strings)

    # -- bulk endpoints: the reader's protocol ---------------------------------------------------
    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int], timeout: int) -> int:
        self._alive(dev_handle)
        if ep != OUT_ENDPOINT:
            raise pipe_error()
        reader = dev_handle.reader
        replies = []
        for frame in dev_handle.decoder.feed(data.tobytes()):
            try:
                reply = reader.answer(decode_message(frame))
            except MessageError as error:
                reply = ErrorReply(code=ErrorCode.BAD_REQUEST, text=str(error)[:200])
            replies.append(encode(reply, frame.seq))
        if dev_handle.decoder.bad_frames:
            dev_handle.decoder.bad_frames = 0
            replies.append(encode(ErrorReply(code=ErrorCode.BAD_CRC, text="bad frame"), 0))
        with dev_handle.ready:
            for reply_bytes in replies:
                dev_handle.replies += reply_bytes
            dev_handle.ready.notify_all()
        return len(data)

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        if ep != IN_ENDPOINT:
            raise pipe_error()
        with dev_handle.ready:
            self._alive(dev_handle)
            if not dev_handle.replies:
                # pyusb's timeout is milliseconds; 0 means wait for ever, which a test never wants.
                dev_handle.ready.wait((timeout or 1000) / 1000)
                self._alive(dev_handle)
            if not dev_handle.replies:
                raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
            size = min(len(buff), len(dev_handle.replies))
            buff[:size] = array.array("B", dev_handle.replies[:size])
            del dev_handle.replies[:size]
            return size
