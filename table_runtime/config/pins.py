"""The `[pins]` section: the dealer panel's BCM pins (buttons, one lamp per box, tower, buzzer) and timings."""

from __future__ import annotations

from typing import Any

from table_runtime.config.model import BUTTONS, PanelPins
from table_runtime.config.reader import Reader, kind_of

_BCM_PINS = range(28)  # GPIO0..GPIO27 on the 40-pin header
OPTIONAL_BUTTONS = ("SURRENDER",)  # a panel wired before the amended text has no such button: its config still loads


def read_pins(reader: Reader, document: dict[str, Any], boxes: int) -> PanelPins | None:
    names = [name.lower() for name in BUTTONS if name not in OPTIONAL_BUTTONS]
    names += ["tower_green", "tower_amber", "tower_red", "buzzer"]
    optional = [name.lower() for name in OPTIONAL_BUTTONS]
    allowed = {*names, *optional, "box_lamps", "debounce_seconds", "void_hold_seconds", "buttons_pull_up"}
    table = reader.table(document, "pins", "", allowed=allowed)
    used: dict[int, str] = {}

    def take_pin(key: str, value: int | None) -> int | None:
        if value is None:
            return None
        if value not in _BCM_PINS:
            reader.problem(key, f"{value}: not a BCM GPIO number (0 to 27)")
            return None
        if value in used:
            reader.problem(key, f"BCM {value} is also {used[value]}")
            return None
        used[value] = key
        return value

    single = {name: take_pin(f"pins.{name}", reader.required(table, name, "pins", int)) for name in names}
    wired = {name: take_pin(f"pins.{name}", reader.value(table, name, "pins", int, None))
             for name in optional}
    lamps: list[int] = []
    raw_lamps = table.get("box_lamps")
    if raw_lamps is None:
        reader.problem("pins.box_lamps", f"missing: one lamp pin per box, {boxes} of them")
    elif not isinstance(raw_lamps, list):
        reader.problem("pins.box_lamps", f"expected an array of {boxes} pins, not {kind_of(raw_lamps)}")
    else:
        for index, pin in enumerate(raw_lamps):
            key = f"pins.box_lamps[{index}]"
            if isinstance(pin, bool) or not isinstance(pin, int):
                reader.problem(key, f"expected an integer, not {kind_of(pin)} {pin!r}")
            elif (checked := take_pin(key, pin)) is not None:
                lamps.append(checked)
        if len(raw_lamps) < boxes:
            missing = ", ".join(f"box{box}" for box in range(len(raw_lamps) + 1, boxes + 1))
            reader.problem("pins.box_lamps", f"{len(raw_lamps)} lamps for {boxes} boxes: no lamp for {missing}")
        elif len(raw_lamps) > boxes:
            reader.problem("pins.box_lamps", f"{len(raw_lamps)} lamps for {boxes} boxes (rules.boxes)")
    debounce = reader.value(table, "debounce_seconds", "pins", float, 0.05)
    if not 0.0 < debounce <= 1.0:
        reader.problem("pins.debounce_seconds", f"{debounce}: more than 0 and at most 1 second")
    hold = reader.value(table, "void_hold_seconds", "pins", float, 3.0)
    if not 0.5 <= hold <= 30.0:
        reader.problem("pins.void_hold_seconds", f"{hold}: from 0.5 to 30 seconds")
    pull_up = reader.value(table, "buttons_pull_up", "pins", bool, True)
    values = [single[name] for name in names]
    if any(value is None for value in values) or len(lamps) != boxes:
        return None
    chosen = {name: value for name, value in {**single, **wired}.items() if value is not None}
    return PanelPins(**chosen, box_lamps=tuple(lamps), debounce_seconds=debounce, void_hold_seconds=hold,
                     buttons_pull_up=pull_up)
