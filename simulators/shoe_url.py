"""A simulated shoe as configuration describes it: the ``sim://shoe`` URL and stacked-shoe files."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from table_runtime.errors import CardCodeError, ConfigError
from table_runtime.game.cards import Card, parse_cards
from table_runtime.text_files import read_text

KNOWN_OPTIONS = frozenset({"seed", "shoe", "drawn", "link", "stack"})


def read_stack(path: Path) -> list[Card]:
    """A stacked shoe file: card codes in draw order, separated by spaces, commas or lines; `#` starts a comment."""
    cards: list[Card] = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        try:
            cards += parse_cards(line.split("#", 1)[0])
        except CardCodeError as error:
            raise CardCodeError(f"{path}:{number}: {error}") from None
    if not cards:
        raise CardCodeError(f"{path}: no cards")
    return cards


def shoe_options(url: str) -> dict[str, Any]:
    """`SimulatedShoe` keywords for `sim://shoe?seed=7&shoe=1&drawn=0&link=/tmp/ttySHOE&stack=FILE`.

    ConfigError (key ``devices.shoe``) for anything else; OSError when the stack file cannot be read.
    """
    parts = urlsplit(url)
    if parts.scheme != "sim" or parts.netloc != "shoe":
        raise ConfigError("devices.shoe", f"{url!r}: a simulated shoe is sim://shoe?seed=N")
    query = parse_qs(parts.query)
    if unknown := sorted(set(query) - KNOWN_OPTIONS):
        raise ConfigError("devices.shoe",
                          f"{url!r}: unknown option {', '.join(unknown)} (known: {sorted(KNOWN_OPTIONS)})")

    def number(name: str, default: int) -> int:
        text = query.get(name, [str(default)])[-1]
        try:
            return int(text)
        except ValueError:
            raise ConfigError("devices.shoe", f"{url!r}: {name} must be a whole number, not {text!r}") from None

    options: dict[str, Any] = {
        "seed": number("seed", 0),
        "shoe_number": number("shoe", 1),
        "cards_already_drawn": number("drawn", 0),
        "link": query["link"][-1] if "link" in query else None,
    }
    if "stack" in query:
        options["stack"] = read_stack(Path(query["stack"][-1]))
    return options
