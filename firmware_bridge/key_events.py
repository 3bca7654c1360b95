"""A keyboard-wedge player card reader, as the Linux input layer reports it: `input_event` records in, card
numbers out (docs/protocols/player_card.md).

A USB card reader of the kind casinos put at a table is a keyboard: each card it reads is "typed" as key presses
ending with ENTER. The kernel hands every key to the reader's event device (``/dev/input/event*``) as
`struct input_event` records (include/uapi/linux/input.h)::

    struct input_event { struct timeval time; __u16 type; __u16 code; __s32 value; };

`struct timeval` is two C longs: 24 bytes a record where a long is 8 bytes (64-bit Raspberry Pi OS, x86-64),
16 where it is 4 (32-bit Raspberry Pi OS). The layout is a parameter (`EventLayout`), native byte order.

`KeyDecoder.feed(data)` takes any slice of the byte stream (a record may arrive in two reads) and returns what it
completed: a `CardNumber` per ENTER, or a `GarbledRead` saying why a read is refused (an unknown key, too many
keys without ENTER, nothing but sentinels). It never raises on what the device sends. Only EV_KEY presses
(value 1) type; releases (0) and auto-repeats (2) do not, except that SHIFT is followed both ways; EV_SYN,
EV_MSC (the scan codes a keyboard sends beside each key) and every other type are skipped.

The key codes are the public values of include/uapi/linux/input-event-codes.h (US layout, which is what a card
reader emulates). A magnetic-stripe reader may send the track's sentinels: track 2 ``;`` ... ``?`` (fields
separated by ``=``) or track 1 ``%B`` ... ``?`` (fields separated by ``^``); the card number is the first field.

Pure: bytes in, items out; no I/O, no clock. Imports nothing of the project.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "EV_KEY",
    "EV_MSC",
    "EV_SYN",
    "KEY_ENTER",
    "KEY_KPENTER",
    "KEY_LEFTSHIFT",
    "KEY_RIGHTSHIFT",
    "LAYOUT_32",
    "LAYOUT_64",
    "NATIVE_LAYOUT",
    "CardNumber",
    "EventLayout",
    "GarbledRead",
    "KeyDecoder",
    "KeyItem",
    "encode_event",
    "key_code_of",
    "layout_of_size",
]

# Event types (input-event-codes.h).
EV_SYN: Final = 0x00
EV_KEY: Final = 0x01
EV_MSC: Final = 0x04
# Key values of an EV_KEY event.
KEY_RELEASED: Final = 0
KEY_PRESSED: Final = 1
KEY_REPEATED: Final = 2
# Keys with a meaning of their own.
KEY_ENTER: Final = 28
KEY_KPENTER: Final = 96
KEY_LEFTSHIFT: Final = 42
KEY_RIGHTSHIFT: Final = 54
_SHIFTS: Final = frozenset({KEY_LEFTSHIFT, KEY_RIGHTSHIFT})
_ENTERS: Final = frozenset({KEY_ENTER, KEY_KPENTER})
# Modifiers and locks a reader may press that type nothing: CTRL, ALT, CAPS LOCK, NUM LOCK, right CTRL and ALT.
_SILENT: Final = frozenset({29, 56, 58, 69, 97, 100})

# code -> (the character unshifted, the character with SHIFT); US layout.
_KEYS: Final[dict[int, tuple[str, str]]] = {
    2: ("1", "!"), 3: ("2", "@"), 4: ("3", "#"), 5: ("4", "$"), 6: ("5", "%"), 7: ("6", "^"), 8: ("7", "&"),
    9: ("8", "*"), 10: ("9", "("), 11: ("0", ")"), 12: ("-", "_"), 13: ("=", "+"),
    16: ("q", "Q"), 17: ("w", "W"), 18: ("e", "E"), 19: ("r", "R"), 20: ("t", "T"), 21: ("y", "Y"),
    22: ("u", "U"), 23: ("i", "I"), 24: ("o", "O"), 25: ("p", "P"), 26: ("[", "{"), 27: ("]", "}"),
    30: ("a", "A"), 31: ("s", "S"), 32: ("d", "D"), 33: ("f", "F"), 34: ("g", "G"), 35: ("h", "H"),
    36: ("j", "J"), 37: ("k", "K"), 38: ("l", "L"), 39: (";", ":"), 40: ("'", '"'), 41: ("`", "~"),
    43: ("\\", "|"), 44: ("z", "Z"), 45: ("x", "X"), 46: ("c", "C"), 47: ("v", "V"), 48: ("b", "B"),
    49: ("n", "N"), 50: ("m", "M"), 51: (",", "<"), 52: (".", ">"), 53: ("/", "?"), 57: (" ", " "),
    # The keypad (NUM LOCK on): digits, operators and the dot type the same with or without SHIFT.
    55: ("*", "*"), 71: ("7", "7"), 72: ("8", "8"), 73: ("9", "9"), 74: ("-", "-"), 75: ("4", "4"),
    76: ("5", "5"), 77: ("6", "6"), 78: ("+", "+"), 79: ("1", "1"), 80: ("2", "2"), 81: ("3", "3"),
    82: ("0", "0"), 83: (".", "."), 98: ("/", "/"),
}

MAX_KEYS: Final = 64  # characters of one read past which it is refused (a card number is far shorter)


@dataclass(frozen=True, slots=True)
class EventLayout:
    """How one `struct input_event` is laid out: `format` for `struct` (native byte order, no padding)."""

    name: str
    format: str

    @property
    def size(self) -> int:
        return struct.calcsize(self.format)


LAYOUT_64: Final = EventLayout("64-bit", "=qqHHi")  # two 8-byte longs: 24 bytes
LAYOUT_32: Final = EventLayout("32-bit", "=llHHi")  # two 4-byte longs: 16 bytes
NATIVE_LAYOUT: Final = LAYOUT_64 if struct.calcsize("@l") == 8 else LAYOUT_32


def layout_of_size(size: int) -> EventLayout:
    """The layout whose records are `size` bytes (24 or 16); ValueError otherwise."""
    for layout in (LAYOUT_64, LAYOUT_32):
        if layout.size == size:
            return layout
    raise ValueError(f"an input_event is 24 bytes (64-bit) or 16 (32-bit), not {size}")


def encode_event(layout: EventLayout, kind: int, code: int, value: int, *, seconds: int = 0,
                 microseconds: int = 0) -> bytes:
    """One record as the kernel writes it (the simulated reader's, and the tests')."""
    return struct.pack(layout.format, seconds, microseconds, kind, code, value)


def key_code_of(character: str) -> tuple[int, bool]:
    """The key that types `character` and whether SHIFT is held for it (the main block, not the keypad)."""
    for code, (plain, shifted) in _KEYS.items():
        if code >= 55 and code != 57:
            continue  # the keypad: a reader types on the main block
        if character == plain:
            return code, False
        if character == shifted:
            return code, True
    raise ValueError(f"no key types {character!r}")


@dataclass(frozen=True, slots=True)
class CardNumber:
    """A card read in full: the number it carries (sentinels stripped)."""

    number: str


@dataclass(frozen=True, slots=True)
class GarbledRead:
    """A read refused: why, and how many characters it had typed."""

    reason: str
    keys: int


KeyItem = CardNumber | GarbledRead


@dataclass(slots=True)
class KeyDecoder:
    """Turns the byte stream of one event device into card reads; owns the partial record, SHIFT and the line."""

    layout: EventLayout = NATIVE_LAYOUT
    max_keys: int = MAX_KEYS
    _pending: bytes = b""
    _line: list[str] = field(default_factory=list)
    _shifts: set[int] = field(default_factory=set)
    _problem: str = ""  # why the current line is refused ("": it is not)
    _overflowed: bool = False  # too long: reported at once, the rest up to ENTER skipped

    def feed(self, data: bytes) -> list[KeyItem]:
        """The reads completed by `data` (which may end inside a record: the rest waits for the next call)."""
        buffer = self._pending + data
        size = self.layout.size
        whole = len(buffer) - len(buffer) % size
        self._pending = buffer[whole:]
        items: list[KeyItem] = []
        for _seconds, _micro, kind, code, value in struct.iter_unpack(self.layout.format, buffer[:whole]):
            if kind != EV_KEY:
                continue  # EV_SYN ends a report, EV_MSC carries the scan code: nothing to type
            item = self._key(code, value)
            if item is not None:
                items.append(item)
        return items

    def _key(self, code: int, value: int) -> KeyItem | None:
        if code in _SHIFTS:
            if value == KEY_RELEASED:
                self._shifts.discard(code)
            else:
                self._shifts.add(code)
            return None
        if value != KEY_PRESSED:
            return None  # a release, or the keyboard's auto-repeat: a card reader types each key once
        if code in _ENTERS:
            return self._end_of_line()
        if self._overflowed or code in _SILENT:
            return None
        keys = _KEYS.get(code)
        if keys is None:
            if not self._problem:
                self._problem = f"unknown key code {code}"
            return None
        self._line.append(keys[1] if self._shifts else keys[0])
        if len(self._line) > self.max_keys:
            count = len(self._line)
            self._reset()
            self._overflowed = True
            return GarbledRead(f"no ENTER within {self.max_keys} keys", count)
        return None

    def _end_of_line(self) -> KeyItem | None:
        line, problem, overflowed = "".join(self._line), self._problem, self._overflowed
        self._reset()
        if overflowed:
            return None  # reported when it went past the limit
        if problem:
            return GarbledRead(problem, len(line))
        if not line:
            return None  # a lone ENTER types no card
        number = card_number_of(line)
        if not number:
            return GarbledRead(f"no card number in {len(line)} characters", len(line))
        return CardNumber(number)

    def _reset(self) -> None:
        self._line = []
        self._problem = ""
        self._overflowed = False


def card_number_of(line: str) -> str:
    """The card number a typed line carries: the line itself, or the first field of a magnetic track between its
    sentinels (track 2 ``;NUMBER=...?``, track 1 ``%BNUMBER^NAME^...?``); "" when there is none."""
    if line[:1] in (";", "%"):
        end = line.find("?")
        track = line[1:end] if end > 0 else line[1:]
        if line[0] == ";":
            return track.split("=", 1)[0].strip()
        first = track.split("^", 1)[0]
        return (first[1:] if first[:1].isalpha() else first).strip()  # the format code: B for a bank-style card
    return line.strip()
