"""The error tree: one root, a base per subsystem, leaves that are also builtins.

Dealer mistakes are never exceptions: the round reports them as alarms. These
errors are for programming misuse, bad configuration and broken devices.
"""

from __future__ import annotations


class TableError(Exception):
    """Root of every error this project raises on purpose."""


class ConfigError(TableError, ValueError):
    """A configuration key or value is wrong; `key` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


class RuleOptionError(ConfigError):
    """An unknown rule option or a bad value for one."""


class CardCodeError(TableError, ValueError):
    """Text or a byte that does not name a card."""


class DeviceError(TableError, OSError):
    """A device is missing, offline or speaks something we do not understand."""


class ProtocolError(TableError, ValueError):
    """Bytes from a device that break its protocol."""


class JournalError(TableError, RuntimeError):
    """The journal is unreadable or its hash chain is broken."""
