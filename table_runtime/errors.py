"""The error tree: one root, a base per subsystem, leaves that are also builtins.

Dealer mistakes are never exceptions: the round reports them as alarms. These
errors are for programming misuse, bad configuration and broken devices. The
root and the errors the devices share (`TableError`, `ConfigError`,
`DeviceError`, `ProtocolError`) are defined in `firmware_bridge.errors`, the
lowest layer, and re-exported here.
"""

from __future__ import annotations

from firmware_bridge.errors import ConfigError, DeviceError, ProtocolError, TableError

__all__ = [
    "CardCodeError",
    "ConfigError",
    "DeviceError",
    "JournalError",
    "ProtocolError",
    "RuleOptionError",
    "TableError",
]


class RuleOptionError(ConfigError):
    """An unknown rule option or a bad value for one."""


class CardCodeError(TableError, ValueError):
    """Text or a byte that does not name a card."""


class JournalError(TableError, RuntimeError):
    """The journal is unreadable or its hash chain is broken."""
