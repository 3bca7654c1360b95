"""The chips lying on a simulated reader's antennas, as test scripts and simulated players move them.

Both simulated readers (simulators.rfid_backend: our chip reader, simulators.feig_firmware: a FEIG reader) hold
the table the same way: a stack of chips per antenna, a zone name for some antennas, a chip in one place at a
time. `AntennaChips` is that table; each reader subclasses it and says which antennas exist (`antenna`) and what
a chip leaving a field means to its firmware (`_left_field`).

Thread-safe: `_lock` guards the stacks, and each reader takes it for its own state too, since the serving
thread answers while tests and the bench move chips.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping

from firmware_bridge.rfid import Tag

__all__ = ["AntennaChips"]


class AntennaChips(ABC):
    """A stack of chips per antenna; `where` is an antenna number or a zone name."""

    def __init__(self, antenna_zones: Mapping[int, str] | None, antennas: Iterable[int]) -> None:
        self.zones: dict[str, int] = {zone: antenna for antenna, zone in (antenna_zones or {}).items()}
        self._lock = threading.Lock()
        self._chips: dict[int, dict[str, Tag]] = {antenna: {} for antenna in antennas}

    @abstractmethod
    def antenna(self, where: int | str) -> int:
        """The antenna `where` names (a ValueError if the reader has none such)."""

    @abstractmethod
    def _left_field(self, uids: Iterable[str]) -> None:
        """Chips that left an antenna's field (called with `_lock` held): what the firmware forgets of them."""

    def place(self, where: int | str, *chips: Tag) -> None:
        with self._lock:
            antenna = self.antenna(where)
            for chip in chips:
                for stack in self._chips.values():  # a chip is in one place
                    if stack.pop(chip.uid, None) is not None:
                        self._left_field((chip.uid,))
                self._chips[antenna][chip.uid] = chip

    def remove(self, where: int | str, *uids: str) -> list[Tag]:
        with self._lock:
            stack = self._chips[self.antenna(where)]
            self._left_field(uids)
            return [stack.pop(uid) for uid in uids]

    def take_all(self, where: int | str) -> list[Tag]:
        with self._lock:
            stack = self._chips[self.antenna(where)]
            chips = list(stack.values())
            stack.clear()
            self._left_field(chip.uid for chip in chips)
            return chips

    def chips(self, where: int | str) -> list[Tag]:
        with self._lock:
            return list(self._chips[self.antenna(where)].values())
