"""The root of the project's error tree and the errors every layer shares.

They live in the lowest layer so that a protocol's, a driver's and the
runtime's errors have one root (``except TableError`` catches any of them)
while nothing here imports the layers above. `table_runtime.errors`
re-exports them next to the runtime's own errors.
"""

from __future__ import annotations

__all__ = ["ConfigError", "DeviceError", "ProtocolError", "TableError"]


class TableError(Exception):
    """Root of every error this project raises on purpose."""


class ConfigError(TableError, ValueError):
    """A configuration key or value is wrong; `key` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


class DeviceError(TableError, OSError):
    """A device is missing, offline or speaks something we do not understand."""


class ProtocolError(TableError, ValueError):
    """Bytes from a device that break its protocol."""
