"""What other installed packages add to the table: the ``sim://`` devices and the simulator commands.

`table_runtime` never imports the simulators (imports point down: the
simulators are built on the product, not the reverse). They are found the way
gpiozero finds its pin factories, through entry points that the package
registering them declares in pyproject.toml:

- group ``smart_table.devices``: ``shoe`` starts a simulated shoe for a
  ``sim://shoe`` URL (`StartShoe`), ``shoe_check`` checks one without starting
  it (`CheckShoe`), ``chip_reader`` opens a simulated reader and
  the pyusb backend it sits behind for a ``sim://reader`` URL (`OpenReader`);
- group ``smart_table.commands``: modules with ``register(subparsers)``, the
  ``table-runtime`` commands ``demo`` and ``simulate``.

An editable install registers new entry points only when ``pip install -e .``
runs again. When none is installed, a ``sim://`` URL is a `ConfigError` and the
command a one-line error, never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Any, Protocol

from table_runtime.errors import ConfigError, TableError

DEVICES_GROUP = "smart_table.devices"
COMMANDS_GROUP = "smart_table.commands"
_REINSTALL = "install the simulators (pip install -e . in a checkout registers them)"


class SimulatedShoeDevice(Protocol):
    """A running simulated shoe, as the assembly uses it: the driver reads it at `url`; `stop` ends it."""

    @property
    def url(self) -> str: ...

    def stop(self) -> None: ...


class StartShoe(Protocol):
    """Entry point ``shoe``: the simulated shoe of a ``sim://shoe`` URL, started (OSError: a file it cannot read)."""

    def __call__(self, url: str, *, decks: int, cut_cards_behind: int, announce: bool) -> SimulatedShoeDevice: ...


class CheckShoe(Protocol):
    """Entry point ``shoe_check``: what starting the shoe of `url` would refuse, without starting it (OSError)."""

    def __call__(self, url: str, *, decks: int, cut_cards_behind: int) -> None: ...


class OpenReader(Protocol):
    """Entry point ``chip_reader``: (simulator, pyusb backend) for a ``sim://reader`` URL (ValueError: a bad URL)."""

    def __call__(self, url: str, antenna_zones: Mapping[int, str]) -> tuple[Any, Any]: ...


class CommandMissingError(TableError, LookupError):
    """A command another package provides is not installed here."""


def find(group: str, name: str) -> EntryPoint | None:
    """The entry point `name` of `group`, None when no installed package declares it."""
    found = entry_points(group=group, name=name)
    return next(iter(found), None)


def shoe_starter(url: str, key: str, *, group: str = DEVICES_GROUP) -> StartShoe:
    """What starts the simulated shoe of `url`; ConfigError(`key`) when no package provides one."""
    starter: StartShoe = _load(group, "shoe", url, key)
    return starter


def shoe_checker(url: str, key: str, *, group: str = DEVICES_GROUP) -> CheckShoe:
    """What checks the simulated shoe of `url` for check-config; ConfigError(`key`) when no package provides one."""
    checker: CheckShoe = _load(group, "shoe_check", url, key)
    return checker


def reader_opener(url: str, key: str, *, group: str = DEVICES_GROUP) -> OpenReader:
    """What opens the simulated chip reader of `url`; ConfigError(`key`) when no package provides one."""
    opener: OpenReader = _load(group, "chip_reader", url, key)
    return opener


def command_module(name: str, *, group: str = COMMANDS_GROUP) -> ModuleType | None:
    """The module of the command `name` another package provides, None when none is installed."""
    entry = find(group, name)
    if entry is None:
        return None
    module: ModuleType = entry.load()
    return module


def missing_command(subparsers: Any, name: str, *, group: str = COMMANDS_GROUP) -> None:
    """Register `name` as a command that says, in one line, that the package providing it is not installed."""
    parser = subparsers.add_parser(name, help=f"(not installed: {_REINSTALL})", add_help=False)

    def refuse(_: Any) -> int:
        raise CommandMissingError(f"'{name}' comes with the simulators, which are not installed here "
                                  f"(no entry point {name!r} in group {group}): {_REINSTALL}")

    parser.set_defaults(handler=refuse, any_arguments=True)


def _load(group: str, name: str, url: str, key: str) -> Any:
    entry = find(group, name)
    if entry is None:
        raise ConfigError(key, f"{url!r}: sim:// devices come with the simulators, which are not installed here "
                               f"(no entry point {name!r} in group {group}): {_REINSTALL}")
    return entry.load()
