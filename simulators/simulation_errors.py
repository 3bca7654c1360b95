"""Errors of the Monte Carlo simulation.

They live apart from `simulators.simulation` because that module can be
compiled by mypyc (see setup.py), and mypyc compiles no subclass of a builtin
exception; these stay plain Python classes either way.
"""

from __future__ import annotations

from table_runtime.errors import TableError


class SimulationError(TableError, RuntimeError):
    """The engine refused what the simulation did: a bug in the simulation or the engine."""


class BoxCountError(TableError, ValueError):
    """More boxes than the table has, or fewer than the rules deal to."""


class ShoeExhaustedError(SimulationError):
    """A round needed more cards than the shoe holds (cut card too deep for the boxes in play)."""
