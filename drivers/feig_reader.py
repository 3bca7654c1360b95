"""FEIG ISO-Host readers (ISO 15693 chips): a driver of the `ChipReader` port (drivers.ports).

`FeigChipReader` owns one FEIG HF reader on a serial line (RS-232/RS-485, or a USB-serial adapter:
``feig:///dev/serial/by-id/...``), on TCP (``feig+tcp://host:10001``) or on FEIG's USB interface
(``feig+usb://``, pyusb; `usb_backend=` as the USB reader's driver takes its backend), docs/protocols/feig.md.
As for the USB reader's driver, a thread (drivers/reader_thread.py, shared by both) does the blocking transfers and
hands each result to the asyncio loop through `loop.call_soon_threadsafe`; this module gives the FEIG transport:

- connect: open the line, ask the software version (0x65) and the device id (0x66 MODE 0x80: the reader's serial
  number), log them and report them in `ReaderOnline`, switch the RF on for the outputs in use (0x6A);
- each scan: RF reset (0x69: the chips that answered the last inventory answer again), an ISO 15693 inventory
  (0xB0 0x01) per antenna output, or once for a multiplexer the reader drives (its records name the channel),
  pages fetched while the reader answers 0x94 (more data); each chip seen for the first time since it came into
  a field has its data block read (0xB0 0x23, addressed), then kept while it stays;
- STATUS 0x84 (RF warning) is a faulty antenna: its zones are reported with `AntennaStatus.OPEN` (an antenna
  alarm naming the zone), and the driver logs the antenna; 0x83 (RF communication error: more chips than the
  anticollision resolves) reports the zone unread (`RF_NOISE`); 0x0F (busy) and 0x02 skip one scan;
- a reader that stays silent for two attempts, or a line that fails (the adapter pulled), is `ReaderOffline`;
  the thread reopens the line every `reconnect_interval` and says `ReaderOnline` when the reader answers again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import serial

from drivers.feig_line import Line, SerialLine, TcpLine, UsbLine
from drivers.feig_settings import MUX_OUTPUT, FeigSettings
from drivers.ports import ChipsScanned, ZoneReading
from drivers.reader_thread import ReaderThread
from firmware_bridge.errors import DeviceError, TableError
from firmware_bridge.feig import (
    DEVICE_ID_MODE,
    Blocks,
    Command,
    DeviceId,
    Frame,
    FrameDecoder,
    InventoryPage,
    Reply,
    ReplyError,
    SoftwareVersion,
    Status,
    inventory_data,
    read_blocks_data,
    status_name,
)
from firmware_bridge.rfid import AntennaStatus, BlockStatus, Tag

__all__ = ["FeigChipReader", "FeigReplyError", "FeigSettings", "ReaderSilentError"]

log = logging.getLogger(__name__)

BLOCKS = 2  # the chip's data block: two 4-byte ISO 15693 blocks (docs/protocols/feig.md 4.3)
_PASSING = (Status.BUSY, Status.DATA_FALSE)


class FeigReplyError(DeviceError):
    """The reader answered with a STATUS or data this driver cannot use."""


class ReaderBusyError(FeigReplyError):
    """A passing answer (busy, request not understood): skip this scan, try the next."""


class ReaderSilentError(DeviceError, TimeoutError):
    """The reader did not answer (it stays silent on a frame it could not read, or it is gone)."""


class FeigChipReader(ReaderThread[FeigSettings]):
    """The real driver: ISO-Host requests on a thread (drivers.reader_thread), events on the loop."""

    thread_suffix = "feig"
    line_errors = (OSError, serial.SerialException, TableError)
    skip_error = ReaderBusyError

    def __init__(self, config: FeigSettings, *, usb_backend: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(config, clock=clock)
        self._usb_backend = usb_backend  # pyusb's backend for feig+usb:// (None: libusb)
        self._line: Line | None = None
        self._decoder = FrameDecoder(advanced=config.advanced)
        self._known: dict[str, Tag] = {}  # chips in a field since their block was read
        self.version: SoftwareVersion | None = None
        self.scans = 0
        self.requests = 0

    @property
    def join_timeout(self) -> float:
        return self.config.timeout * 2 + 5.0  # a request may be waiting for its second attempt's reply

    def _skipped(self, error: Exception) -> None:
        log.info("%s: %s; the next scan tries again", self.name, error)

    def _connect(self) -> None:
        config = self.config
        if config.usb:
            self._line = UsbLine(config, self._usb_backend)
        else:
            self._line = TcpLine(config) if config.tcp_port is not None else SerialLine(config)
        self._decoder = FrameDecoder(advanced=config.advanced)
        reply = self._request(Command.SOFTWARE_VERSION)
        self._expect_ok(reply, "software version")
        version = SoftwareVersion.from_data(reply.data)
        outputs = 1 << (MUX_OUTPUT - 1) if config.mux else sum(1 << (n - 1) for n in config.antenna_zones)
        self._expect_ok(self._request(Command.RF_OUTPUT, bytes((outputs,))), "RF on")
        self.version = version
        self._known.clear()
        serial = self._device_id()
        log.info("%s: FEIG reader at %s, COM-ADR %d: device id %s, firmware %s, hardware type 0x%02X, reader type "
                 "0x%02X, antennas %s", self.name, config.where, reply.address, serial or "unknown", version.firmware,
                 version.hardware_type, version.reader_type,
                 ", ".join(f"{a}={z}" for a, z in sorted(config.antenna_zones.items())))
        line = f"{config.where} adr {reply.address}"
        self._came_online(serial=f"{serial} ({line})" if serial else line,
                          firmware=f"{version.firmware} (hw 0x{version.hardware_type:02X}, "
                                   f"type 0x{version.reader_type:02X})",
                          protocol="FEIG ISO-Host " + ("advanced" if config.advanced else "standard"))

    def _device_id(self) -> str | None:
        """The reader's serial number (0x66 MODE 0x80), None from a reader that does not tell it."""
        reply = self._request(Command.READER_INFO, bytes((DEVICE_ID_MODE,)))
        if reply.status != Status.OK:
            log.info("%s: reader info answered %s: no device id", self.name, status_name(reply.status))
            return None
        try:
            return DeviceId.from_data(reply.data).serial
        except ReplyError as error:
            raise FeigReplyError(f"{self.name}: {error}") from error

    def _disconnect(self) -> None:
        if self._line is not None:
            self._line.close()
            self._line = None

    # -- one scan --------------------------------------------------------------------------------
    def _scan(self) -> ChipsScanned:
        config = self.config
        self._expect_ok(self._request(Command.RF_RESET), "RF reset")
        seen: dict[int, list[str]] = {antenna: [] for antenna in config.antenna_zones}
        status: dict[int, AntennaStatus] = {}
        groups = [[*config.antenna_zones]] if config.mux else [[antenna] for antenna in sorted(config.antenna_zones)]
        for antennas in groups:
            output = MUX_OUTPUT if config.mux else antennas[0]
            trouble = self._inventory(output, seen)
            if trouble is not None:
                for antenna in antennas:
                    status[antenna] = trouble
        uids = {uid for found in seen.values() for uid in found}
        for uid in [uid for uid in self._known if uid not in uids]:
            del self._known[uid]  # it left every field: its block is read again when it comes back
        readings = []
        for antenna in sorted(config.antenna_zones):
            tags = tuple(self._tag(uid) for uid in dict.fromkeys(seen[antenna]))
            readings.append(ZoneReading(zone=config.antenna_zones[antenna], tags=tags,
                                        status=status.get(antenna, AntennaStatus.OK)))
        self.scans += 1
        return ChipsScanned(reader=self.name, at=self._clock(), readings=tuple(readings))

    def _inventory(self, output: int, seen: dict[int, list[str]]) -> AntennaStatus | None:
        """One inventory on `output`, every page; the UIDs go to the antenna each was seen on. A fault: its status."""
        more = False
        while True:
            reply = self._request(Command.ISO_HOST, inventory_data(antennas=1 << (output - 1), more=more))
            if reply.status == Status.RF_WARNING:
                zones = [zone for antenna, zone in self.config.antenna_zones.items()
                         if self.config.mux or antenna == output]
                log.warning("%s: antenna fault (RF warning 0x84) on output %d: zones %s not read", self.name,
                            output, ", ".join(zones))
                return AntennaStatus.OPEN
            if reply.status == Status.RF_COMMUNICATION_ERROR:
                log.warning("%s: RF communication error on output %d (too many chips in the field?)", self.name,
                            output)
                return AntennaStatus.RF_NOISE
            if reply.status in _PASSING:
                raise ReaderBusyError(f"{self.name}: inventory answered {status_name(reply.status)}")
            try:
                page = InventoryPage.from_reply(reply, antennas=True)
            except ReplyError as error:
                raise FeigReplyError(f"{self.name}: {error}") from error
            for record in page.tags:
                antennas = [s.antenna for s in record.sightings] if self.config.mux else [output]
                for antenna in antennas:
                    if antenna in seen:
                        seen[antenna].append(record.uid)
            if not page.more:
                return None
            more = True

    def _tag(self, uid: str) -> Tag:
        """The chip `uid` with its data block, read once while it stays in a field."""
        known = self._known.get(uid)
        if known is not None:
            return known
        reply = self._request(Command.ISO_HOST, read_blocks_data(uid, self.config.first_block, BLOCKS))
        if reply.status in _PASSING:
            raise ReaderBusyError(f"{self.name}: read blocks answered {status_name(reply.status)}")
        if reply.status != Status.OK:
            return Tag(uid=uid, block_status=BlockStatus.READ_FAILED)  # read again at the next scan
        try:
            block = Blocks.from_reply(reply).data
        except ReplyError as error:
            raise FeigReplyError(f"{self.name}: chip {uid}: {error}") from error
        if len(block) != 8:
            tag = Tag(uid=uid, block_status=BlockStatus.UNKNOWN_FORMAT)
        else:
            tag = Tag.from_bytes(bytes.fromhex(uid) + bytes((BlockStatus.OK,)) + block)
        self._known[uid] = tag
        return tag

    # -- one request -----------------------------------------------------------------------------
    def _request(self, command: int, data: bytes = b"") -> Reply:
        """One request and its reply; silence is asked once more before the reader counts as silent."""
        for attempt in (1, 2):
            reply = self._exchange(Frame(self.config.address, command, data, self.config.advanced))
            if reply is not None:
                return reply
            log.info("%s: no reply to 0x%02X (attempt %d)", self.name, command, attempt)
        raise ReaderSilentError(f"{self.name}: no reply from the reader at {self.config.where} "
                                f"(COM-ADR {self.config.address}) within {self.config.timeout:g} s")

    def _exchange(self, frame: Frame) -> Reply | None:
        line = self._line
        assert line is not None
        self._decoder.reset()
        line.write(frame.to_bytes())
        self.requests += 1
        deadline = self._clock() + self.config.timeout
        while self._clock() < deadline and not self._stop.is_set():
            for answer in self._decoder.feed(line.read()):
                if answer.command != frame.command:
                    continue  # a late reply to a request we gave up on
                try:
                    return Reply.from_frame(answer)
                except ReplyError as error:
                    raise FeigReplyError(f"{self.name}: {error}") from error
        if self._stop.is_set():
            raise DeviceError(f"{self.name}: closing")
        return None

    def _expect_ok(self, reply: Reply, what: str) -> None:
        if reply.status in _PASSING:
            raise ReaderBusyError(f"{self.name}: {what} answered {status_name(reply.status)}")
        if reply.status != Status.OK:
            raise FeigReplyError(f"{self.name}: {what} answered {status_name(reply.status)}")
