"""`load_config`: read the TOML file, check every section, and return one frozen `TableConfig` or every problem."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from table_runtime.config.devices import read_devices
from table_runtime.config.model import ConfigInvalidError, TableConfig
from table_runtime.config.pins import read_pins
from table_runtime.config.player_cards import read_player_cards
from table_runtime.config.reader import Reader, kind_of
from table_runtime.config.services import read_clock, read_display, read_journal, read_metrics, read_mqtt
from table_runtime.config.staff import read_staff
from table_runtime.errors import ConfigError
from table_runtime.game.rules import RuleOptions, TableLimits, rules_from_mapping
from table_runtime.text_files import InputFileError, read_text

_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def load_config(path: str | Path, *, environ: Mapping[str, str] | None = None) -> TableConfig:
    """Read, check and freeze a configuration file; `ConfigInvalidError` lists every problem."""
    source = Path(path)
    try:
        document = tomllib.loads(read_text(source))
    except InputFileError as error:
        raise ConfigInvalidError(source, [ConfigError("file", error.where + error.message)]) from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigInvalidError(source, [ConfigError("file", f"not valid TOML: {error}")]) from error
    if not document:
        raise ConfigInvalidError(source, [ConfigError("file", "empty: no table_id, no [devices]; "
                                                              "start from configs/demo.toml or configs/pi.toml")])
    reader = Reader(source.resolve().parent, os.environ if environ is None else environ)
    sections: dict[str, Any] = {}
    config = _build(reader, source, document, sections)
    if reader.problems or config is None:
        raise ConfigInvalidError(source, reader.problems, **sections)
    return config


def _build(reader: Reader, source: Path, document: dict[str, Any], sections: dict[str, Any]) -> TableConfig | None:
    """The config, or None; `sections` gets the devices and metrics read without a problem of their own."""
    reader.unknown(document, "", {"table_id", "data_dir", "rules", "limits", "devices", "pins", "mqtt", "display",
                                  "metrics", "clock", "journal", "player_cards", "staff"})
    table_id = reader.required(document, "table_id", "", str)
    if table_id is not None and not _TABLE_ID.fullmatch(table_id):
        reader.problem("table_id", f"{table_id!r}: 1 to 32 letters, digits, '-' or '_' (it goes into MQTT topics)")
    data_dir_text = reader.required(document, "data_dir", "", str)
    data_dir = reader.base_dir / Path(data_dir_text).expanduser() if data_dir_text else None
    rules = _rules(reader, document)
    limits = _limits(reader, document)
    boxes = rules.boxes if rules is not None else _raw_boxes(document)
    before = len(reader.problems)
    devices, zones = read_devices(reader, document, boxes)
    if devices is not None and not any(problem.key.startswith("devices")
                                       for problem in reader.problems[before:]):
        sections["devices"] = devices
    pins = read_pins(reader, document, boxes)
    mqtt = read_mqtt(reader, document, table_id or "")
    display = read_display(reader, document)
    before = len(reader.problems)
    metrics = read_metrics(reader, document)
    if len(reader.problems) == before:
        sections["metrics"] = metrics
    clock = read_clock(reader, document)
    journal = read_journal(reader, document)
    player_cards = read_player_cards(reader, document, boxes)
    staff = read_staff(reader, document)
    if (table_id is None or data_dir is None or rules is None or limits is None or devices is None
            or pins is None or reader.problems):
        return None
    return TableConfig(source=source, table_id=table_id, rules=rules, limits=limits, data_dir=data_dir,
                       devices=devices, zones=zones, pins=pins, mqtt=mqtt, display=display,
                       metrics=metrics, clock=clock, journal=journal, player_cards=player_cards,
                       staff=staff)


def _rules(reader: Reader, document: dict[str, Any]) -> RuleOptions | None:
    table = document.get("rules", {})
    if not isinstance(table, dict):
        reader.problem("rules", f"expected a table, not {kind_of(table)}")
        return None
    try:
        return rules_from_mapping(table)
    except ConfigError as error:
        reader.problems.append(error)
        return None


def _raw_boxes(document: dict[str, Any]) -> int:
    """The box count to check lamps and zones against when the rules themselves are wrong."""
    table = document.get("rules")
    boxes = table.get("boxes") if isinstance(table, dict) else None
    return boxes if isinstance(boxes, int) and not isinstance(boxes, bool) and 1 <= boxes <= 7 else 7


def _limits(reader: Reader, document: dict[str, Any]) -> TableLimits | None:
    table = reader.table(document, "limits", "", allowed={"min_bet_cents", "max_bet_cents",
                                                          "hyper_min_bet_cents", "hyper_max_bet_cents",
                                                          "buy_in_max_cents"})
    defaults = TableLimits()
    pairs = []
    for prefix in ("", "hyper_"):
        low = reader.value(table, f"{prefix}min_bet_cents", "limits", int, getattr(defaults, f"{prefix}min_bet_cents"))
        high = reader.value(table, f"{prefix}max_bet_cents", "limits", int, getattr(defaults, f"{prefix}max_bet_cents"))
        if low <= 0:
            reader.problem(f"limits.{prefix}min_bet_cents", f"{low}: must be more than 0 cents")
            return None
        if high < low:
            reader.problem(f"limits.{prefix}max_bet_cents", f"{high} is below the minimum {low}")
            return None
        pairs.append((low, high))
    (low, high), (hyper_low, hyper_high) = pairs
    buy_in_max = reader.value(table, "buy_in_max_cents", "limits", int, defaults.buy_in_max_cents)
    if buy_in_max <= 0:
        reader.problem("limits.buy_in_max_cents", f"{buy_in_max}: must be more than 0 cents")
        return None
    return TableLimits(min_bet_cents=low, max_bet_cents=high,
                       hyper_min_bet_cents=hyper_low, hyper_max_bet_cents=hyper_high, buy_in_max_cents=buy_in_max)
