"""Walking the TOML document: typed values, paths and secrets, each problem collected under its dotted key."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from table_runtime.errors import ConfigError
from table_runtime.text_files import InputFileError, read_text

T = TypeVar("T")


class Reader:
    """Walks the TOML document, remembering which keys were read and every problem met."""

    def __init__(self, base_dir: Path, environ: Mapping[str, str]) -> None:
        self.base_dir = base_dir
        self.environ = environ
        self.problems: list[ConfigError] = []

    def problem(self, key: str, message: str) -> None:
        self.problems.append(ConfigError(key, message))

    def table(self, document: Mapping[str, Any], key: str, prefix: str, *, allowed: set[str]) -> dict[str, Any]:
        value = document.get(key, {})
        if not isinstance(value, dict):
            self.problem(dotted(prefix, key), f"expected a table, not {kind_of(value)}")
            return {}
        self.unknown(value, dotted(prefix, key), allowed)
        return value

    def unknown(self, table: Mapping[str, Any], prefix: str, allowed: set[str]) -> None:
        for key in sorted(set(table) - allowed):
            self.problem(dotted(prefix, key), f"unknown key; known: {', '.join(sorted(allowed))}")

    def value(self, table: Mapping[str, Any], key: str, prefix: str, kind: type[T], default: T) -> T:
        if key not in table:
            return default
        value = table[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.problem(dotted(prefix, key), f"expected {_kind_name(kind)}, not {kind_of(value)} {value!r}")
            return default
        return value

    def required(self, table: Mapping[str, Any], key: str, prefix: str, kind: type[T]) -> T | None:
        if key not in table:
            self.problem(dotted(prefix, key), "missing")
            return None
        marker: Any = object()
        value = self.value(table, key, prefix, kind, marker)
        return None if value is marker else value

    def path(self, table: Mapping[str, Any], key: str, prefix: str, *, must_exist: bool) -> Path | None:
        text = self.value(table, key, prefix, str, "")
        if not text:
            return None
        path = self.base_dir / Path(text).expanduser()
        if must_exist and not path.is_file():
            self.problem(dotted(prefix, key), f"no such file: {path}")
        return path

    def secret(self, table: Mapping[str, Any], key: str, prefix: str, env: str) -> str | None:
        """The secret from the environment, else from the file named by `key`."""
        if self.environ.get(env):
            return self.environ[env]
        path = self.path(table, key, prefix, must_exist=False)
        if path is None:
            return None
        try:
            return read_text(path).strip() or None
        except InputFileError as error:
            self.problem(dotted(prefix, key), str(error))
            return None


def dotted(prefix: str, key: str) -> str:
    """The dotted key of `key` in the table at `prefix` (``pins`` + ``split`` -> ``pins.split``)."""
    return f"{prefix}.{key}" if prefix else key


def kind_of(value: Any) -> str:
    """What a TOML value is, as a problem names it ("an integer", "a table")."""
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def _kind_name(kind: type[Any]) -> str:
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(kind, kind.__name__)
