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
- it trusts only its reader: every reply must carry the reader's COM-ADR (the configured one, or with ``adr=255``
  the one it answered the first request with); a reply from another COM-ADR is another reader on the bus, and the
  reader is offline with that reason until only it answers again;
- a request unanswered within `timeout` is waited for as long again before anything else is sent, so that a late
  reply is never taken for the next request's; an inventory whose reply is lost or late is asked again from a new
  RF reset (its tags answered and went quiet: asked again without the reset, they would read as an empty field);
  asked twice in vain, or still answering 0x94 (more data) after `MAX_PAGES` pages, its zones are reported
  incomplete (`RF_NOISE`, `TOO_MANY_TAGS`) with the output and the reason in `ZoneReading.detail`: the table keeps
  their chips and raises an antenna alarm, never reads them as empty;
- a reader that stays silent for two attempts, or a line that fails (the adapter pulled), is `ReaderOffline`;
  so is a reader whose scans could not complete `FAILING_SCANS` times in a row (busy, lost or late replies,
  endless pages), which stays offline until a scan completes again; the thread reopens the line every
  `reconnect_interval` and says `ReaderOnline` when the reader answers again.
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
    BROADCAST,
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

__all__ = ["FAILING_SCANS", "MAX_PAGES", "FeigChipReader", "FeigReplyError", "FeigSettings", "ForeignReplyError",
           "ReaderFailingError", "ReaderSilentError"]

log = logging.getLogger(__name__)

BLOCKS = 2  # the chip's data block: two 4-byte ISO 15693 blocks (docs/protocols/feig.md 4.3)
MAX_PAGES = 32  # pages of one inventory (0x94, more data): 768 tags at 24 a page, past the 0x83 field limit
FAILING_SCANS = 5  # scans in a row that could not complete before the reader counts as offline
_PASSING = (Status.BUSY, Status.DATA_FALSE)


class FeigReplyError(DeviceError):
    """The reader answered with a STATUS or data this driver cannot use."""


class ReaderBusyError(FeigReplyError):
    """A passing answer (busy, request not understood): skip this scan, try the next."""


class ReaderSilentError(DeviceError, TimeoutError):
    """The reader did not answer (it stays silent on a frame it could not read, or it is gone), or answers later
    than the timeout."""


class ForeignReplyError(FeigReplyError):
    """A reply from another COM-ADR than the reader's: another reader answers on the bus."""


class ReaderFailingError(DeviceError):
    """The reader's scans could not complete `FAILING_SCANS` times in a row."""


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
        self._address: int | None = None  # the COM-ADR every reply must carry (None: learned from the first)
        self._failures = 0  # scans in a row that could not complete
        self._greeting: dict[str, str] | None = None  # ReaderOnline held back until a scan completes again
        self.version: SoftwareVersion | None = None
        self.scans = 0
        self.requests = 0
        self.late_replies = 0  # replies that came after the timeout, never used

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
        self._address = None if config.address == BROADCAST else config.address
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
        greeting = {"serial": f"{serial} ({line})" if serial else line,
                    "firmware": f"{version.firmware} (hw 0x{version.hardware_type:02X}, "
                                f"type 0x{version.reader_type:02X})",
                    "protocol": "FEIG ISO-Host " + ("advanced" if config.advanced else "standard")}
        if self._failures >= FAILING_SCANS:
            self._greeting = greeting  # offline for failing scans: online again once a scan completes
        else:
            self._came_online(**greeting)

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
        try:
            readings, trouble = self._read_zones()
        except ReaderBusyError as error:
            self._failing(str(error))
            raise
        if trouble:
            self._failing(trouble)
        else:
            self._failures = 0
            if self._greeting is not None:
                greeting, self._greeting = self._greeting, None
                self._came_online(**greeting)
        self.scans += 1
        return ChipsScanned(reader=self.name, at=self._clock(), readings=readings)

    def _failing(self, reason: str) -> None:
        """A scan that could not complete; the last of `FAILING_SCANS` in a row (or the first after the reader was
        offline for them) puts the reader offline with `reason`."""
        self._failures += 1
        if self._greeting is not None:
            self._stop.wait(self.config.reconnect_interval)  # still failing: tried again at the reconnect's pace
        elif self._failures < FAILING_SCANS:
            return
        raise ReaderFailingError(f"{self.name}: {self._failures} scans in a row could not complete ({reason})")

    def _read_zones(self) -> tuple[tuple[ZoneReading, ...], str]:
        """Every zone's reading, and why the scan could not complete ("" when it did)."""
        config = self.config
        self._expect_ok(self._request(Command.RF_RESET), "RF reset")
        seen: dict[int, list[str]] = {antenna: [] for antenna in config.antenna_zones}
        status: dict[int, tuple[AntennaStatus, str]] = {}
        troubles: list[str] = []
        groups = [[*config.antenna_zones]] if config.mux else [[antenna] for antenna in sorted(config.antenna_zones)]
        for antennas in groups:
            output = MUX_OUTPUT if config.mux else antennas[0]
            found, trouble, detail = self._inventory(output)
            for antenna, read in found.items():
                if antenna in seen:
                    seen[antenna] += read
            if trouble is not None:
                for antenna in antennas:
                    status[antenna] = (trouble, detail)
                if detail:
                    troubles.append(detail)
        uids = {uid for read in seen.values() for uid in read}
        if not status:  # a chip missing from an incomplete scan may still be there: its block is kept
            for uid in [uid for uid in self._known if uid not in uids]:
                del self._known[uid]  # it left every field: its block is read again when it comes back
        readings = []
        for antenna in sorted(config.antenna_zones):
            tags = tuple(self._tag(uid) for uid in dict.fromkeys(seen[antenna]))
            trouble, detail = status.get(antenna, (AntennaStatus.OK, ""))
            readings.append(ZoneReading(zone=config.antenna_zones[antenna], tags=tags, status=trouble,
                                        detail=detail))
        return tuple(readings), "; ".join(troubles)

    def _inventory(self, output: int) -> tuple[dict[int, list[str]], AntennaStatus | None, str]:
        """One inventory on `output`, every page: the UIDs seen per antenna, and a trouble (its status, and what
        the driver could not read, "" for the reader's own antenna STATUS). A lost or late reply: asked again once
        from a new RF reset (the tags that answered are quiet until one)."""
        where = f"{self.name} output {output}" + (" (multiplexer)" if self.config.mux else "")
        for attempt in (1, 2):
            if attempt == 2:
                self._expect_ok(self._request(Command.RF_RESET), "RF reset")
            result = self._inventory_pages(output, where)
            if result is not None:
                return result
            log.warning("%s: inventory reply lost or late (attempt %d)%s", where, attempt,
                        "; asked again from a new RF reset" if attempt == 1 else "")
        return {}, AntennaStatus.RF_NOISE, (f"{where}: no inventory reply within {self.config.timeout:g} s, twice "
                                            f"(the second after a new RF reset): not read this scan")

    def _inventory_pages(self, output: int, where: str) -> tuple[dict[int, list[str]], AntennaStatus | None, str] \
            | None:
        """The pages of one inventory; None when a reply is lost or late (the inventory is asked again)."""
        found: dict[int, list[str]] = {}
        for page_number in range(MAX_PAGES):
            frame = Frame(self.config.address, Command.ISO_HOST,
                          inventory_data(antennas=1 << (output - 1), more=page_number > 0), self.config.advanced)
            reply, _late = self._exchange(frame, drain=True)
            if reply is None:
                return None
            if reply.status == Status.RF_WARNING:
                zones = [zone for antenna, zone in self.config.antenna_zones.items()
                         if self.config.mux or antenna == output]
                log.warning("%s: antenna fault (RF warning 0x84) on output %d: zones %s not read", self.name,
                            output, ", ".join(zones))
                return found, AntennaStatus.OPEN, ""
            if reply.status == Status.RF_COMMUNICATION_ERROR:
                log.warning("%s: RF communication error on output %d (too many chips in the field?)", self.name,
                            output)
                return found, AntennaStatus.RF_NOISE, ""
            if reply.status in _PASSING:
                raise ReaderBusyError(f"{self.name}: inventory answered {status_name(reply.status)}")
            try:
                page = InventoryPage.from_reply(reply, antennas=True)
            except ReplyError as error:
                raise FeigReplyError(f"{self.name}: {error}") from error
            for record in page.tags:
                antennas = [s.antenna for s in record.sightings] if self.config.mux else [output]
                for antenna in antennas:
                    found.setdefault(antenna, []).append(record.uid)
            if not page.more:
                return found, None, ""
        log.warning("%s: still more data (0x94) after %d inventory pages: its zones are not fully read", where,
                    MAX_PAGES)
        return found, AntennaStatus.TOO_MANY_TAGS, (f"{where}: the reader still had more data (0x94) after "
                                                    f"{MAX_PAGES} pages: not fully read this scan")

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
        frame = Frame(self.config.address, command, data, self.config.advanced)
        late = False
        for attempt in (1, 2):
            reply, was_late = self._exchange(frame, drain=attempt == 1)
            if reply is not None:
                return reply
            late = late or was_late
            log.info("%s: no reply to 0x%02X (attempt %d)", self.name, command, attempt)
        where = f"the reader at {self.config.where} (COM-ADR {self.config.address})"
        if late:
            raise ReaderSilentError(f"{self.name}: {where} replies later than the {self.config.timeout:g} s timeout")
        raise ReaderSilentError(f"{self.name}: no reply from {where} within {self.config.timeout:g} s")

    def _exchange(self, frame: Frame, *, drain: bool) -> tuple[Reply | None, bool]:
        """The reply to `frame` within the timeout, or None; with `drain`, an unanswered request is waited for as
        long again (a reply then is late: counted, never used), so that no late reply is taken for the next
        request's. The second value says whether a late reply came."""
        line = self._line
        assert line is not None
        self._decoder.reset()
        line.write(frame.to_bytes())
        self.requests += 1
        reply = self._reply_to(frame.command, self._clock() + self.config.timeout)
        if reply is not None or not drain:
            return reply, False
        late = self._reply_to(frame.command, self._clock() + self.config.timeout)
        if late is None:
            return None, False
        self.late_replies += 1
        log.info("%s: the reply to 0x%02X came later than the %g s timeout: not used", self.name, frame.command,
                 self.config.timeout)
        return None, True

    def _reply_to(self, command: int, deadline: float) -> Reply | None:
        line = self._line
        assert line is not None
        while self._clock() < deadline and not self._stop.is_set():
            for answer in self._decoder.feed(line.read()):
                if self._address is None:
                    self._address = answer.address  # adr=255: the reader answers with its own address
                if answer.address != self._address:
                    raise ForeignReplyError(
                        f"{self.name}: a reply from COM-ADR {answer.address} on the line of the reader at COM-ADR "
                        f"{self._address} ({self.config.where}): another reader answers; none of its replies is used")
                if answer.command != command:
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
