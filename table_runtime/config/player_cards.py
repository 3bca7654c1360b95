"""The `[player_cards]` section: the player card readers and the casino's secret for the players' pseudonyms.

    [player_cards]
    reader = "/dev/input/by-id/usb-ACME_CardReader-event-kbd"   # the table's reader: the dealer places its cards
    secret_file = "/etc/table-runtime/player-card-secret"       # or TABLE_PLAYER_CARD_SECRET; 16 bytes at least
    event_size = 24                                             # input_event bytes: 24 (64-bit OS), 16 (32-bit)
    [player_cards.boxes]                                        # readers at a box: a read seats its player there
    3 = "/dev/input/by-id/usb-ACME_CardReader_3-event-kbd"

No section, or one naming no reader: no player card reader (players are named on the display, or rated
anonymously by box). A reader named without a usable secret is refused, naming the key: the table never journals
a card number (table_runtime/rating/pseudonym.py). A reader missing at the start is not a configuration problem
(it is an alarm, and is looked for again: drivers/player_card.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from firmware_bridge.key_events import NATIVE_LAYOUT
from table_runtime.config.reader import Reader, kind_of
from table_runtime.rating.pseudonym import MIN_SECRET_BYTES

ENV_PLAYER_CARD_SECRET: Final = "TABLE_PLAYER_CARD_SECRET"
EVENT_SIZES: Final = (24, 16)
TABLE_READER: Final = "table"  # the name of the table's reader; a box's is "box<N>"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerCardsConfig:
    """The readers (the table's and the boxes') and the secret their cards are pseudonymised with."""

    reader: Path | None = None
    boxes: tuple[tuple[int, Path], ...] = ()  # (box, device), box order
    secret: bytes | None = field(default=None, repr=False)
    event_size: int = NATIVE_LAYOUT.size

    @property
    def readers(self) -> tuple[tuple[str, Path, int | None], ...]:
        """(name, device, box or None for the table's reader) of every reader configured."""
        table = ((TABLE_READER, self.reader, None),) if self.reader is not None else ()
        return table + tuple((f"box{box}", path, box) for box, path in self.boxes)


def read_player_cards(reader: Reader, document: dict[str, Any], boxes: int) -> PlayerCardsConfig:
    prefix = "player_cards"
    table = reader.table(document, prefix, "", allowed={"reader", "secret_file", "event_size", "boxes"})
    table_reader = reader.path(table, "reader", prefix, must_exist=False)
    event_size = reader.value(table, "event_size", prefix, int, NATIVE_LAYOUT.size)
    if event_size not in EVENT_SIZES:
        reader.problem("player_cards.event_size", f"{event_size}: an input_event is 24 bytes on a 64-bit system, "
                                                  "16 on a 32-bit one")
        event_size = NATIVE_LAYOUT.size
    at_boxes = _box_readers(reader, table.get("boxes", {}), boxes)
    devices = [path for path in (table_reader, *(path for _, path in at_boxes)) if path is not None]
    for path in sorted({path for path in devices if devices.count(path) > 1}):
        reader.problem("player_cards", f"{path} is named for two readers")
    secret_text = reader.secret(table, "secret_file", prefix, ENV_PLAYER_CARD_SECRET)
    secret = secret_text.encode("utf-8") if secret_text else None
    if devices and (secret is None or len(secret) < MIN_SECRET_BYTES):
        said = "is too short" if secret else "is missing or empty"
        reader.problem("player_cards.secret_file", f"a player card reader is configured but the casino's secret "
                                                   f"{said} (at least {MIN_SECRET_BYTES} bytes, in the file "
                                                   f"secret_file names or in {ENV_PLAYER_CARD_SECRET}): "
                                                   f"card numbers are never journaled")
    return PlayerCardsConfig(reader=table_reader, boxes=at_boxes, secret=secret, event_size=event_size)


def _box_readers(reader: Reader, value: Any, boxes: int) -> tuple[tuple[int, Path], ...]:
    if not isinstance(value, dict):
        reader.problem("player_cards.boxes", f"expected a table of box number = device, not {kind_of(value)}")
        return ()
    found: list[tuple[int, Path]] = []
    for key, device in value.items():
        where = f"player_cards.boxes.{key}"
        if not key.isdigit() or not 1 <= int(key) <= boxes:
            reader.problem(where, f"{key!r} is not a box of the table (1 to {boxes})")
        elif not isinstance(device, str) or not device:
            reader.problem(where, f"expected the reader's device path, not {kind_of(device)} {device!r}")
        else:
            found.append((int(key), reader.base_dir / Path(device).expanduser()))
    return tuple(sorted(found))
