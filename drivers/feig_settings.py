"""Where a FEIG reader is and how to talk to it: `FeigSettings`, read from a ``feig://`` URL (docs/protocols/feig.md 6).

Serial lines: ``feig:///dev/serial/by-id/...?adr=255&baud=38400&parity=E&frame=advanced&mux=0``; TCP (the LAN
readers): ``feig+tcp://host:10001?adr=255``; FEIG's own USB interface: ``feig+usb://[0ab1:PPPP][?serial=S]``.
Every bad parameter is a `ConfigError` naming the key.
"""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from firmware_bridge.errors import ConfigError
from firmware_bridge.feig import BROADCAST

TCP_PORT = 10001
USB_VENDOR = 0x0AB1  # FEIG ELECTRONIC
MAX_OUTPUTS = 8  # ANT-SEL: one bit per reader output
MUX_OUTPUT = 1  # the output a reader-driven multiplexer hangs on


@dataclass(frozen=True, slots=True, kw_only=True)
class FeigSettings:
    """Where to find one FEIG reader, how to talk to it, and which zone lies over each antenna."""

    antenna_zones: Mapping[int, str]
    path: str  # the serial device, the TCP host, or "usb"
    tcp_port: int | None = None  # None: a serial line (or USB)
    usb: bool = False  # FEIG's USB interface (vendor bulk endpoints) instead of a serial line
    usb_vendor: int = USB_VENDOR
    usb_product: int | None = None  # None: any reader of the vendor
    usb_serial: str | None = None  # one reader among several of the same model
    address: int = BROADCAST  # COM-ADR; 255 reaches any reader alone on its line
    baud: int = 38400
    parity: str = "E"  # 8E1, the readers' default
    advanced: bool = True  # the advanced frame (16-bit length): inventories of many chips need it
    mux: bool = False  # antennas behind a multiplexer the reader drives, numbered by level (42)
    name: str = "feig-reader"
    scan_interval: float = 0.1
    reconnect_interval: float = 1.0
    timeout: float = 2.0  # seconds for one reply (an inventory of a full multiplexer takes most of a second)
    first_block: int = 0

    def __post_init__(self) -> None:
        key = f"{self.name}.antenna_zones"
        if not self.antenna_zones:
            raise ConfigError(key, "map at least one antenna to a zone")
        for antenna in self.antenna_zones:
            if not self.mux and not 1 <= antenna <= MAX_OUTPUTS:
                raise ConfigError(key, f"antenna {antenna}: a reader output is 1..{MAX_OUTPUTS} "
                                       f"(a multiplexer's channels need ?mux=1)")
            if self.mux and (antenna > 88 or not all(digit in "12345678" for digit in str(antenna))):
                raise ConfigError(key, f"antenna {antenna}: a multiplexer channel is 1..8 on one level, "
                                       f"11..88 on two (42: output 4 of the second level, output 2 of the first)")
        zones = list(self.antenna_zones.values())
        if len(set(zones)) != len(zones):
            raise ConfigError(key, "two antennas map to the same zone")
        for name, seconds in (("scan_interval", self.scan_interval), ("reconnect_interval", self.reconnect_interval),
                              ("timeout", self.timeout)):
            if not (math.isfinite(seconds) and seconds > 0):
                raise ConfigError(f"{self.name}.{name}", f"{seconds}: a positive number of seconds")
        if not 0 <= self.address <= 255:
            raise ConfigError(f"{self.name}.adr", f"{self.address}: a bus address is 0..254, or 255 for any")
        if self.parity not in ("E", "N", "O"):
            raise ConfigError(f"{self.name}.parity", f"{self.parity!r}: E, N or O")

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(self.antenna_zones[antenna] for antenna in sorted(self.antenna_zones))

    @property
    def where(self) -> str:
        if self.usb:
            product = f"{self.usb_product:04x}" if self.usb_product is not None else "*"
            return f"usb {self.usb_vendor:04x}:{product}" + (f" serial {self.usb_serial}" if self.usb_serial else "")
        return f"{self.path}:{self.tcp_port}" if self.tcp_port is not None else self.path

    @classmethod
    def from_url(cls, url: str, antenna_zones: Mapping[int, str], *, name: str = "feig-reader",
                 key: str = "url") -> FeigSettings:
        """``feig:///dev/serial/by-id/...?adr=255&baud=38400&parity=E&frame=advanced&mux=0`` or
        ``feig+tcp://host:10001?adr=255`` (also ``scan_interval``, ``reconnect_interval``, ``timeout``, seconds)."""
        parts = urllib.parse.urlsplit(url)
        query = dict(urllib.parse.parse_qsl(parts.query))
        known = {"adr", "baud", "parity", "frame", "mux", "scan_interval", "reconnect_interval", "timeout", "block",
                 *(("serial",) if parts.scheme == "feig+usb" else ())}
        unknown = sorted(set(query) - known)
        if unknown:
            raise ConfigError(key, f"{url}: unknown parameter {unknown[0]!r}; known: {', '.join(sorted(known))}")
        options: dict[str, object] = {}
        try:
            if parts.scheme == "feig":
                if not parts.path:
                    raise ConfigError(key, f"{url}: name the serial device, e.g. feig:///dev/serial/by-id/usb-FEIG...")
                options["path"] = parts.path
                options["baud"] = int(query.get("baud", "38400"))
                options["parity"] = query.get("parity", "E").upper()
            elif parts.scheme == "feig+tcp":
                if not parts.hostname:
                    raise ConfigError(key, f"{url}: name the reader's host, e.g. feig+tcp://10.0.0.9:10001")
                options["path"] = parts.hostname
                options["tcp_port"] = parts.port or TCP_PORT
            elif parts.scheme == "feig+usb":
                options.update(path="usb", usb=True, usb_serial=query.get("serial"))
                if parts.netloc:
                    vendor, _, product = parts.netloc.partition(":")
                    if not product:
                        raise ConfigError(key, f"{url}: feig+usb://VVVV:PPPP (hex ids), or feig+usb:// for any")
                    options.update(usb_vendor=int(vendor, 16), usb_product=int(product, 16))
            else:
                raise ConfigError(key, f"{url}: the scheme is feig:// (serial), feig+tcp:// or feig+usb://")
            options["address"] = int(query.get("adr", str(BROADCAST)))
            frame = query.get("frame", "advanced")
            if frame not in ("advanced", "standard"):
                raise ConfigError(key, f"{url}: frame is advanced or standard, not {frame!r}")
            options["advanced"] = frame == "advanced"
            mux = query.get("mux", "0")
            if mux not in ("0", "1"):
                raise ConfigError(key, f"{url}: mux is 0 (antennas on the reader's outputs) or 1 (a multiplexer)")
            options["mux"] = mux == "1"
            options["first_block"] = int(query.get("block", "0"))
            for field in ("scan_interval", "reconnect_interval", "timeout"):
                if field in query:
                    options[field] = float(query[field])
        except ConfigError:
            raise
        except ValueError as error:
            raise ConfigError(key, f"{url}: {error}") from error
        return cls(antenna_zones=antenna_zones, name=name, **options)  # type: ignore[arg-type]
