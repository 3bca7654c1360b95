"""The simulated devices behind ``sim://`` URLs, as the table's assembly starts them.

`table_runtime.runtime.assembly` finds these through the `smart_table.devices`
entry point group (pyproject.toml): ``shoe`` is `start_shoe`, ``shoe_check``
is `check_shoe` (for check-config), ``chip_reader`` is `open_reader`. The
product never imports the simulators; a Pi without them refuses a ``sim://``
URL in one line.
"""

from __future__ import annotations

from collections.abc import Mapping

from simulators.rfid_backend import RfidBackend, SimulatedReader, simulated_reader
from simulators.shoe import SimulatedShoe


def start_shoe(url: str, *, decks: int, cut_cards_behind: int, announce: bool) -> SimulatedShoe:
    """The shoe firmware of `url` (``sim://shoe?seed=N&shoe=S&drawn=D...``) running on a pty; read it at `.url`.

    Raises OSError when a ``stack=FILE`` cannot be read; the caller stops it.
    """
    shoe = SimulatedShoe.from_url(url, decks=decks, cut_cards_behind=cut_cards_behind, announce=announce)
    return shoe.start()


def check_shoe(url: str, *, decks: int, cut_cards_behind: int) -> None:
    """What `start_shoe` would refuse in `url`, without starting anything (OSError: a ``stack=FILE`` unreadable)."""
    SimulatedShoe.from_url(url, decks=decks, cut_cards_behind=cut_cards_behind)


def open_reader(url: str, antenna_zones: Mapping[int, str]) -> tuple[SimulatedReader, RfidBackend]:
    """The reader of `url` (``sim://reader?seed=N...``) and the pyusb backend the real driver finds it through.

    Raises ValueError for a URL it cannot use.
    """
    return simulated_reader(url, antenna_zones)
