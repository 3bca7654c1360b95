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
keys without ENTER, nothing but sentinels, SHIFT still held at ENTER, keys left without ENTER for `line_gap`
seconds, records out of alignment: see `KeyDecoder`). It never raises on what the device sends. Only EV_KEY presses
(value 1) type; releases (0) and auto-repeats (2) do not, except that SHIFT is followed both ways; EV_SYN,
EV_MSC (the scan codes a keyboard sends beside each key) and every other type are skipped.

The key codes are the public values of include/uapi/linux/input-event-codes.h (US layout, which is what a card
reader emulates). A magnetic-stripe reader may send the track's sentinels: track 2 ``;`` ... ``?`` (fields
separated by ``=``) or track 1 ``%B`` ... ``?`` (fields separated by ``^``); the card number is the first field.

Pure: bytes in, items out; no I/O, no clock (the caller passes its time). Imports nothing of the project.
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
LINE_GAP: Final = 2.0  # seconds without a key after which a line without ENTER is a read lost (a card takes less)
SYN_REPORT: Final = 0
# The largest code of each event type (input-event-codes.h: SYN_MAX, KEY_MAX, REL_MAX, ABS_MAX, MSC_MAX, SW_MAX,
# LED_MAX, SND_MAX, REP_MAX, the force feedback's and the power's): a record past them is no device's.
_SYN_MAX: Final = 0x0F
_KEY_MAX: Final = 0x2FF
_CODE_MAX: Final[dict[int, int]] = {0x02: 0x0F, 0x03: 0x3F, EV_MSC: 0x07, 0x05: 0x11, 0x11: 0x0F, 0x12: 0x07,
                                    0x14: 0x01, 0x15: 0x7F, 0x16: 0xFFFF, 0x17: 0x01}
_SECONDS_MAX: Final = 1 << 32  # a record's time: seconds of the realtime or monotonic clock, before 2106
_CHECKED: Final = 3  # records after an ENTER that must make sense in a size for the alignment to be taken
_PATTERN_SIZE: Final = 8  # type, code and value: the end of a record of either size
_ENTER_PATTERNS: Final = tuple(struct.pack("=HHi", EV_KEY, code, value) for code in (28, 96) for value in (0, 1))


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
    """Turns the byte stream of one event device into card reads; owns the partial record, SHIFT, the line and the
    alignment of the records.

    Every record is checked before it is used (`plausible`): a record no device writes (an unknown type, a time's
    microseconds past a second, a key value other than 0, 1, 2, two SYN_REPORTs in a row) means the stream lost
    its alignment (stray bytes, or records of the other size). The read in progress is then lost, reported at the
    next ENTER as a `GarbledRead` naming the bytes skipped; the decoder looks for that ENTER at every byte offset,
    in either record size, and reads on from it, aligned, in the size whose records follow it (`layout` changes
    when the other size fits: the record size is detected).
    """

    layout: EventLayout = NATIVE_LAYOUT
    max_keys: int = MAX_KEYS
    line_gap: float = LINE_GAP
    _pending: bytearray = field(default_factory=bytearray)
    _line: list[str] = field(default_factory=list)
    _shifts: set[int] = field(default_factory=set)
    _problem: str = ""  # why the current line is refused ("": it is not)
    _overflowed: bool = False  # too long: reported at once, the rest up to ENTER skipped
    _aligned: bool = True
    _position: int = 0  # the stream's byte at the start of `_pending`
    _lost_at: int = 0  # the stream's byte where the alignment was lost
    _last: tuple[int, int] = (-1, -1)  # the type and code of the last record read
    _typed_at: float | None = None  # when the current read's last key came (the caller's clock)

    def feed(self, data: bytes, at: float | None = None) -> list[KeyItem]:
        """The reads completed by `data` (which may end inside a record: the rest waits for the next call). `at`,
        the caller's time: a read whose keys stopped more than `line_gap` seconds before is lost (no ENTER came),
        reported before `data` is read, so that it never runs into the next card's number."""
        items: list[KeyItem] = []
        if at is not None:
            stale = self._stale(at)
            if stale is not None:
                items.append(stale)
        buffer = self._pending
        buffer += data
        offset = 0
        while True:
            if not self._aligned:
                offset = self._realign(offset, items)
                if not self._aligned:
                    break
            size = self.layout.size
            if len(buffer) - offset < size:
                break
            seconds, micro, kind, code, value = struct.unpack_from(self.layout.format, buffer, offset)
            if not self.plausible(seconds, micro, kind, code, value):
                self._lose_alignment(self._position + offset, at)
                continue
            offset += size
            self._last = (kind, code)
            if kind != EV_KEY:
                continue  # EV_SYN ends a report, EV_MSC carries the scan code: nothing to type
            self._typed_at = at
            item = self._key(code, value)
            if item is not None:
                items.append(item)
        del buffer[:offset]
        self._position += offset
        return items

    def plausible(self, seconds: int, micro: int, kind: int, code: int, value: int) -> bool:
        """Whether a device could have written this record after the last one (include/uapi/linux/input.h)."""
        if not (0 <= micro < 1_000_000 and 0 <= seconds < _SECONDS_MAX):
            return False
        if kind == EV_SYN:
            return code <= _SYN_MAX and value == 0 and not (code == SYN_REPORT and self._last == (EV_SYN, SYN_REPORT))
        if kind == EV_KEY:
            return code <= _KEY_MAX and value in (KEY_RELEASED, KEY_PRESSED, KEY_REPEATED)
        limit = _CODE_MAX.get(kind)
        return limit is not None and code <= limit

    def _lose_alignment(self, position: int, at: float | None) -> None:
        """The records stopped making sense at byte `position` of the stream: the read in progress is lost (its keys
        may be another size's or stray bytes'); the next ENTER is looked for."""
        self._aligned = False
        self._lost_at = position
        self._line = []
        self._shifts.clear()
        self._problem = ""
        self._overflowed = False
        self._typed_at = at

    def _realign(self, offset: int, items: list[KeyItem]) -> int:
        """Look for an ENTER key record at any byte from `offset`, in either size, followed by records that make
        sense in that size; found: the lost read reported in `items` and the decoder aligned after that ENTER.
        Returns where to read on, or what to keep for the next call."""
        buffer = self._pending
        while True:
            found = min((at for at in (buffer.find(pattern, offset) for pattern in _ENTER_PATTERNS) if at >= 0),
                        default=-1)
            if found < 0:
                return max(offset, len(buffer) - _PATTERN_SIZE - _CHECKED * LAYOUT_64.size)
            verdict, waiting = self._layout_at(found)
            if waiting:
                return max(offset, found - LAYOUT_64.size)  # the records after it are not all here yet
            if verdict is None:
                offset = found + 1
                continue
            start = found - (verdict.size - _PATTERN_SIZE)
            skipped = self._position + start - self._lost_at
            changed = verdict != self.layout
            self.layout, self._aligned, self._typed_at = verdict, True, None
            self._last = (EV_KEY, KEY_ENTER)
            items.append(GarbledRead(f"the records lost their alignment ({max(skipped, 0)} bytes skipped); read "
                                     f"again after the next ENTER" +
                                     (f", as {verdict.size}-byte records" if changed else ""), 0))
            return start + verdict.size

    def _layout_at(self, found: int) -> tuple[EventLayout | None, bool]:
        """The record size in which the ENTER at `found` (its type, code and value) and `_CHECKED` records after it
        make sense, the decoder's own size first (None: neither), and whether more bytes are needed to tell."""
        buffer = self._pending
        waiting = False
        last = self._last
        try:
            for layout in sorted((LAYOUT_64, LAYOUT_32), key=lambda candidate: candidate != self.layout):
                start = found - (layout.size - _PATTERN_SIZE)
                if start < 0:
                    continue
                if len(buffer) < start + (_CHECKED + 1) * layout.size:
                    waiting = True
                    continue
                self._last = (-1, -1)
                for index in range(_CHECKED + 1):
                    record = struct.unpack_from(layout.format, buffer, start + index * layout.size)
                    if not self.plausible(*record):
                        break
                    self._last = (record[2], record[3])
                else:
                    return layout, False
            return None, waiting
        finally:
            self._last = last

    def _stale(self, at: float) -> GarbledRead | None:
        """A read left without its ENTER for longer than `line_gap`: lost (a misaligned one is still looked for)."""
        if self._typed_at is None or at - self._typed_at <= self.line_gap:
            return None
        if not self._aligned:
            self._typed_at = None
            return GarbledRead("the records lost their alignment and no ENTER followed", 0)
        if self._overflowed:
            self._reset()  # an over-long read, refused when it went past the limit, ends without its ENTER
            return None
        if not (self._line or self._problem):
            return None
        count, problem = len(self._line), self._problem
        self._reset()
        return GarbledRead(problem or f"no ENTER after {count} characters: the read stopped", count)

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
        if self._shifts and not problem:
            problem = "SHIFT still held at ENTER"  # a reader releases it after each character that needs it
        self._reset()
        self._shifts.clear()  # SHIFT is the card's: one pressed and never released does not change the next card
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
        self._typed_at = None


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
