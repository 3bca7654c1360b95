"""RFID chip readers: the real pyusb driver of the `ChipReader` port (drivers.ports).

`UsbChipReader` owns one reader on USB (docs/protocols/rfid.md). A thread does
the blocking bulk transfers: identify and check the version, then an inventory
of every configured antenna each `scan_interval`; each result reaches the
asyncio loop through `loop.call_soon_threadsafe` as a `ChipsScanned` event
whose readings are named by zone. A USB error (cable pulled) or a timeout
closes the device and yields `ReaderOffline`; the thread keeps looking for the
reader and yields `ReaderOnline` when it is back. The thread, the queue and the
online state are `drivers.reader_thread.ReaderThread`'s; this module gives the
USB transport: find and identify the reader, one inventory per scan.

The backend is a keyword (`backend=`): pyusb's libusb on the table, the
simulated reader of `simulators.rfid_backend` in CI.
"""

from __future__ import annotations

import contextlib
import math
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import usb.core
import usb.util

from drivers.ports import ChipReader, ChipsScanned, ReaderEvent, ReaderOffline, ReaderOnline, ZoneReading
from drivers.reader_thread import ReaderThread
from firmware_bridge.errors import ConfigError, DeviceError, TableError
from firmware_bridge.rfid import (
    ErrorCode,
    ErrorReply,
    FrameDecoder,
    Identify,
    Identity,
    Inventory,
    InventoryResult,
    Message,
    check_version,
    decode_message,
    encode,
)

__all__ = [
    "ChipReader",
    "ChipsScanned",
    "ReaderBusyError",
    "ReaderEvent",
    "ReaderOffline",
    "ReaderOnline",
    "ReaderReplyError",
    "ReaderSettings",
    "UsbChipReader",
    "ZoneReading",
]

OUT_ENDPOINT = 0x01
IN_ENDPOINT = 0x81
READ_SIZE = 16384


class ReaderReplyError(DeviceError):
    """The reader answered a request with an ERROR message or the wrong message."""


class ReaderBusyError(ReaderReplyError):
    """A passing error (busy, corrupted request): skip this scan, try the next (section 3.5)."""


_PASSING = (ErrorCode.BUSY, ErrorCode.BAD_CRC)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderSettings:
    """Where to find one reader and which zone lies over each of its antennas."""

    vendor_id: int
    product_id: int
    antenna_zones: Mapping[int, str]
    name: str = "chip-reader"
    serial: str | None = None  # pick one reader among several of the same model
    scan_interval: float = 0.1  # seconds between inventories (10 scans/s)
    reconnect_interval: float = 1.0
    timeout_ms: int = 500

    def __post_init__(self) -> None:
        if not self.antenna_zones:
            raise ConfigError(f"{self.name}.antenna_zones", "map at least one antenna to a zone")
        for antenna in self.antenna_zones:
            if not 0 <= antenna < 32:
                raise ConfigError(f"{self.name}.antenna_zones", f"antenna {antenna} is not 0..31")
        zones = list(self.antenna_zones.values())
        if len(set(zones)) != len(zones):
            raise ConfigError(f"{self.name}.antenna_zones", "two antennas map to the same zone")
        for key, seconds in (("scan_interval", self.scan_interval), ("reconnect_interval", self.reconnect_interval)):
            if not (math.isfinite(seconds) and seconds > 0):  # NaN would spin the reader's thread
                raise ConfigError(f"{self.name}.{key}", f"{seconds}: intervals are positive seconds")
        if self.timeout_ms <= 0:  # pyusb waits for ever on 0: a silent reader would hold the thread
            raise ConfigError(f"{self.name}.timeout_ms", f"{self.timeout_ms}: a positive number of milliseconds")

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(self.antenna_zones[antenna] for antenna in sorted(self.antenna_zones))

    @classmethod
    def from_url(cls, url: str, antenna_zones: Mapping[int, str], *, name: str = "chip-reader",
                 key: str = "url") -> ReaderSettings:
        """`usb://VVVV:PPPP[?serial=S&scan_interval=0.1&reconnect_interval=1&timeout_ms=500]` (hex ids);
        `sim://...` URLs name the same ids as the simulated reader (simulators.rfid_backend)."""
        parts = urllib.parse.urlsplit(url)
        query = dict(urllib.parse.parse_qsl(parts.query))
        unknown = sorted(set(query) - {"serial", "scan_interval", "reconnect_interval", "timeout_ms", "seed",
                                       "miss_rate", "antennas"})
        if unknown:
            raise ConfigError(key, f"{url}: unknown parameter {unknown[0]!r}")
        if parts.scheme == "sim":
            ids = (0x1209, 0x7AB1)
        elif parts.scheme == "usb":
            try:
                vendor, product = parts.netloc.split(":")
                ids = (int(vendor, 16), int(product, 16))
            except ValueError:
                raise ConfigError(key, f"{url}: expected usb://VVVV:PPPP with hex ids") from None
        else:
            raise ConfigError(key, f"{url}: the scheme is usb:// or sim://")
        try:
            timing = {field: float(query[field]) for field in ("scan_interval", "reconnect_interval") if field in query}
            timeout_ms = int(query.get("timeout_ms", "500"))
        except ValueError as error:
            raise ConfigError(key, f"{url}: {error}") from error
        return cls(vendor_id=ids[0], product_id=ids[1], antenna_zones=antenna_zones, name=name,
                   serial=query.get("serial"), timeout_ms=timeout_ms, **timing)


@dataclass(slots=True)
class _Link:
    device: Any
    decoder: FrameDecoder = field(default_factory=FrameDecoder)
    seq: int = 0


class UsbChipReader(ReaderThread[ReaderSettings]):
    """The real driver: pyusb bulk transfers on a thread (drivers.reader_thread), events on the loop."""

    thread_suffix = "usb"
    line_errors = (usb.core.USBError, usb.core.NoBackendError, TableError)  # no libusb: said, retried
    skip_error = ReaderBusyError

    def __init__(self, config: ReaderSettings, *, backend: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(config, clock=clock)
        self._backend = backend
        self._link: _Link | None = None
        self.identity: Identity | None = None

    # -- the transport ---------------------------------------------------------------------------
    def _scan(self) -> ChipsScanned:
        assert self._link is not None
        result = self._request(self._link, Inventory(antennas=tuple(sorted(self.config.antenna_zones))))
        if not isinstance(result, InventoryResult):
            raise ReaderReplyError(f"{self.name}: INVENTORY answered by {type(result).__name__}")
        return self._scanned(result)

    def _disconnect(self) -> None:
        if self._link is not None:
            self._dispose(self._link)
            self._link = None

    def _connect(self) -> None:
        match: dict[str, Any] = {"idVendor": self.config.vendor_id, "idProduct": self.config.product_id}
        devices = list(usb.core.find(find_all=True, backend=self._backend, **match))
        if self.config.serial is not None:
            devices = [device for device in devices if self._serial_of(device) == self.config.serial]
        if not devices:
            raise DeviceError(f"{self.name}: no reader {self.config.vendor_id:04x}:{self.config.product_id:04x}"
                              + (f" serial {self.config.serial}" if self.config.serial else ""))
        link = _Link(devices[0])
        try:
            link.device.set_configuration()
            identity = self._request(link, Identify())
            if not isinstance(identity, Identity):
                raise ReaderReplyError(f"{self.name}: IDENTIFY answered by {type(identity).__name__}")
            check_version(identity)
            missing = [antenna for antenna in self.config.antenna_zones if antenna >= identity.antennas]
            if missing:
                raise ConfigError(f"{self.name}.antenna_zones",
                                  f"antennas {missing} but the reader has {identity.antennas}")
        except BaseException:
            self._dispose(link)
            raise
        self._link = link
        self.identity = identity
        self._came_online(serial=identity.serial, firmware=identity.firmware,
                          protocol=f"{identity.major}.{identity.minor}")

    @staticmethod
    def _serial_of(device: Any) -> str | None:
        """The device's serial number, None when it cannot be read: pyusb raises ValueError for a device whose
        string descriptors it may not read (no udev permission), which must not end the reader's thread."""
        try:
            serial: str | None = device.serial_number
        except (ValueError, usb.core.USBError):
            return None
        return serial

    def _request(self, link: _Link, message: Message) -> Message:
        """One request, one reply with the same seq (section 2)."""
        link.seq = (link.seq + 1) % 256
        link.device.write(OUT_ENDPOINT, encode(message, link.seq), self.config.timeout_ms)
        deadline = self._clock() + self.config.timeout_ms / 1000
        while True:
            data = link.device.read(IN_ENDPOINT, READ_SIZE, self.config.timeout_ms)
            for frame in link.decoder.feed(bytes(data)):
                if frame.seq != link.seq:
                    continue  # a late reply to a request we gave up on
                reply = decode_message(frame)
                if isinstance(reply, ErrorReply):
                    error = ReaderBusyError if reply.code in _PASSING else ReaderReplyError
                    raise error(f"{self.name}: error {reply.code.name}: {reply.text}")
                return reply
            if self._clock() > deadline:
                raise ReaderReplyError(f"{self.name}: no reply to seq {link.seq}")

    def _scanned(self, result: InventoryResult) -> ChipsScanned:
        zones = self.config.antenna_zones
        readings = tuple(ZoneReading(zone=zones[report.antenna], tags=report.tags, status=report.status)
                         for report in result.reports if report.antenna in zones)
        return ChipsScanned(reader=self.name, at=self._clock(), readings=readings)

    @staticmethod
    def _dispose(link: _Link) -> None:
        with contextlib.suppress(usb.core.USBError):  # the device may already be gone
            usb.util.dispose_resources(link.device)

