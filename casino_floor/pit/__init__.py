"""The pit page: every table of the floor at a glance, and each table's live view, read-only."""

from casino_floor.pit.picture import FloorPicture
from casino_floor.pit.server import PitServer

__all__ = ["FloorPicture", "PitServer"]
