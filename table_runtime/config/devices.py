"""The `[devices]` section: the shoe's URL, the panel's pin factory and GPIO chip, the chip readers, their antennas."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from table_runtime.config.model import (
    PIN_FACTORIES,
    READER_SCHEMES,
    SHOE_SCHEMES,
    ChipReaderConfig,
    DevicesConfig,
    zone_names,
)
from table_runtime.config.reader import Reader, kind_of
from table_runtime.core.tray import tray_zones


def read_devices(reader: Reader, document: dict[str, Any], boxes: int) -> tuple[DevicesConfig | None, tuple[str, ...]]:
    prefix = "devices"
    table = reader.table(document, "devices", "", allowed={"shoe", "chip_readers", "panel_pin_factory",
                                                             "gpio_chip", "chip_registry", "casino_id"})
    shoe = reader.required(table, "shoe", prefix, str)
    if shoe is not None:
        _check_shoe(reader, shoe)
    factory = reader.value(table, "panel_pin_factory", prefix, str, "") or None
    if factory is not None and factory not in PIN_FACTORIES:
        reader.problem("devices.panel_pin_factory", f"{factory!r} is not one of {', '.join(PIN_FACTORIES)}")
    gpio_chip = _gpio_chip(reader, table, factory)
    registry = reader.path(table, "chip_registry", prefix, must_exist=False)
    casino_id = reader.value(table, "casino_id", prefix, int, 0) if "casino_id" in table else None
    if casino_id is not None and not 0 <= casino_id <= 0xFFFF:
        reader.problem("devices.casino_id", f"{casino_id} is not a casino id of the chips' tags (0..65535)")
    raw_readers = table.get("chip_readers", [])
    if not isinstance(raw_readers, list):
        reader.problem("devices.chip_readers", "expected an array of tables ([[devices.chip_readers]])")
        raw_readers = []
    valid_zones = set(zone_names(boxes, hyper=True))  # the hyper field's cases may be mapped (55-4 6°)
    valid_zones.update(tray_zones())  # the chip tray's rows (core/tray.py)
    readers: list[ChipReaderConfig] = []
    seen_urls: dict[str, str] = {}
    zones: set[str] = set()
    for index, raw in enumerate(raw_readers):
        key = f"devices.chip_readers[{index}]"
        chip_reader = _chip_reader(reader, key, raw, index, valid_zones, boxes)
        if chip_reader is None:
            continue
        if chip_reader.url in seen_urls:
            reader.problem(f"{key}.url", f"{chip_reader.url} is also {seen_urls[chip_reader.url]}")
        seen_urls.setdefault(chip_reader.url, key)
        zones.update(chip_reader.antennas.values())
        readers.append(chip_reader)
    for box in range(1, boxes + 1):
        if f"box{box}" not in zones:
            reader.problem("devices.chip_readers", f"no antenna reads box{box} (the seated stake of box {box})")
    ordered = tuple(name for name in (*zone_names(boxes, hyper=True), *tray_zones()) if name in zones)
    if shoe is None:
        return None, ordered
    return DevicesConfig(shoe=shoe, chip_readers=tuple(readers), panel_pin_factory=factory, gpio_chip=gpio_chip,
                         chip_registry=registry, casino_id=casino_id), ordered


def _gpio_chip(reader: Reader, table: Mapping[str, Any], factory: str | None) -> int | str | None:
    """`devices.gpio_chip`: which /dev/gpiochip the lgpio factory opens, by number or by label."""
    if "gpio_chip" not in table:
        return None
    key = "devices.gpio_chip"
    chip = table["gpio_chip"]
    if isinstance(chip, bool) or not isinstance(chip, (int, str)):
        reader.problem(key, f"expected a chip number or label, not {kind_of(chip)} {chip!r}")
        return None
    if isinstance(chip, int) and not 0 <= chip <= 255:
        reader.problem(key, f"{chip}: a gpiochip number is 0 to 255")
        return None
    if isinstance(chip, str) and not re.fullmatch(r"[\w.@,:-]{1,31}", chip):
        reader.problem(key, f"{chip!r}: a chip label, as `gpiodetect` shows it (e.g. \"pinctrl-rp1\")")
        return None
    if factory != "lgpio":
        reader.problem(key, f"only the lgpio pin factory takes a chip; set devices.panel_pin_factory = \"lgpio\" "
                            f"(it is {factory or 'unset'})")
    return chip


def _chip_reader(reader: Reader, key: str, raw: Any, index: int, valid_zones: set[str],
                 boxes: int) -> ChipReaderConfig | None:
    if not isinstance(raw, dict):
        reader.problem(key, f"expected a table, not {kind_of(raw)}")
        return None
    reader.unknown(raw, key, {"name", "url", "vendor_id", "product_id", "serial", "antennas"})
    name = reader.value(raw, "name", key, str, f"reader{index + 1}")
    url = reader.value(raw, "url", key, str, "")
    vendor_id = reader.value(raw, "vendor_id", key, int, -1)
    product_id = reader.value(raw, "product_id", key, int, -1)
    serial = reader.value(raw, "serial", key, str, "") or None
    if url and ("vendor_id" in raw or "product_id" in raw):
        reader.problem(key, "give either url or vendor_id/product_id, not both")
        return None
    if not url:
        for id_key, number in (("vendor_id", vendor_id), ("product_id", product_id)):
            if id_key not in raw:
                reader.problem(f"{key}.{id_key}", "missing (or give url)")
            elif not 0 <= number <= 0xFFFF:
                reader.problem(f"{key}.{id_key}", f"{number}: a USB id is 0 to 0xFFFF")
        if not (0 <= vendor_id <= 0xFFFF and 0 <= product_id <= 0xFFFF):
            return None
        url = f"usb://{vendor_id:04x}:{product_id:04x}" + (f"?serial={serial}" if serial else "")
    elif not _check_url(reader, f"{key}.url", url, READER_SCHEMES):
        return None
    else:
        parts = urlsplit(url)
        if parts.scheme == "usb":
            ids = _usb_ids(parts.netloc)
            if ids is None:
                reader.problem(f"{key}.url", f"{url}: a USB reader URL is usb://VVVV:PPPP[?serial=S] (hex ids)")
                return None
            vendor_id, product_id = ids
            serial = serial or parse_qs(parts.query).get("serial", [None])[0]
    # A FEIG multiplexer numbers its channels by level, up to 88 (docs/protocols/feig.md 6); the driver's
    # settings check the rest of a feig:// URL (check-config runs them: runtime.assembly.preflight).
    antennas = _antennas(reader, f"{key}.antennas", raw.get("antennas"), valid_zones, boxes,
                         highest=88 if urlsplit(url).scheme.startswith("feig") else 64)
    return ChipReaderConfig(name=name, url=url, antennas=antennas,
                            vendor_id=vendor_id if vendor_id >= 0 else None,
                            product_id=product_id if product_id >= 0 else None, serial_number=serial)


def _usb_ids(netloc: str) -> tuple[int, int] | None:
    match = re.fullmatch(r"([0-9A-Fa-f]{1,4}):([0-9A-Fa-f]{1,4})", netloc)
    return (int(match[1], 16), int(match[2], 16)) if match else None


def _antennas(reader: Reader, key: str, raw: Any, valid_zones: set[str], boxes: int, *,
              highest: int = 64) -> dict[int, str]:
    if raw is None:
        reader.problem(key, "missing: map antenna numbers to zones, e.g. 1 = \"box1\"")
        return {}
    if not isinstance(raw, dict):
        reader.problem(key, f"expected a table of antenna = \"zone\", not {kind_of(raw)}")
        return {}
    antennas: dict[int, str] = {}
    for number_text, zone in raw.items():
        antenna_key = f"{key}.{number_text}"
        if not number_text.isdigit() or not 0 < int(number_text) <= highest:
            reader.problem(antenna_key, f"antenna numbers are whole numbers from 1 to {highest}")
            continue
        if not isinstance(zone, str):
            reader.problem(antenna_key, f"expected a zone name, not {kind_of(zone)}")
            continue
        if zone not in valid_zones:
            reader.problem(antenna_key, f"unknown zone {zone!r}: zones are boxN, boxN.behind, boxN.insurance "
                                        f"for N from 1 to {boxes}, and the hyper field's hyper.17 ... hyper.21, "
                                        "hyper.blackjack, hyper.bust, and the chip tray's rows tray.row1 ... "
                                        "tray.row16")
            continue
        antennas[int(number_text)] = zone
    return dict(sorted(antennas.items()))


def _check_shoe(reader: Reader, url: str) -> None:
    """A device path (``/dev/table-shoe``, as the driver takes it) or a URL; the line settings are the protocol's."""
    if url.startswith("/"):
        return
    if not _check_url(reader, "devices.shoe", url, SHOE_SCHEMES):
        return
    parts = urlsplit(url)
    if parts.scheme == "serial" and parts.query not in ("", "baudrate=115200"):
        reader.problem("devices.shoe", f"{url!r}: the shoe protocol fixes the line at 115200 baud 8N1 "
                                       f"(docs/protocols/shoe.md); remove '?{parts.query}'")


def _check_url(reader: Reader, key: str, url: str, schemes: tuple[str, ...]) -> bool:
    parts = urlsplit(url)
    if parts.scheme not in schemes:
        reader.problem(key, f"{url!r}: the scheme must be one of {', '.join(s + '://' for s in schemes)}")
        return False
    if parts.scheme == "serial" and not parts.path:
        reader.problem(key, f"{url!r}: name the port, e.g. serial:///dev/table-shoe")
        return False
    return True
