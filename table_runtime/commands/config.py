"""`table-runtime check-config FILE`: every problem of a configuration file, with its key.

Past the file itself it opens what the service would open first and could not
do without: the dealer panel's GPIO pin factory on its chip (on the Pi: lgpio
and ``/dev/gpiochipN``), and the metrics library when ``[metrics]`` asks for it.
Each failure is one line naming its key; exit 1.
"""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any

from drivers.dealer_panel import PanelDeviceError
from drivers.gpio_chip import open_pin_factory
from table_runtime.config import ConfigInvalidError, TableConfig, describe, load_config
from table_runtime.errors import ConfigError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check-config", help="check a table configuration file; print every problem with its key"
    )
    parser.add_argument("file", help="the TOML configuration file")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.file)
    except ConfigInvalidError as error:
        count = len(error.problems)
        print(f"{args.file}: {count} problem{'s' if count != 1 else ''}")
        for problem in error.problems:
            print(f"  {problem.key}: {problem.message}")
        return 1
    try:
        opened = open_service_parts(config)
    except ConfigError as error:
        print(f"{args.file}: 1 problem")
        print(f"  {error.key}: {error.message}")
        return 1
    print(f"{args.file}: ok: {describe(config)}; opened {opened}")
    return 0


def open_service_parts(config: TableConfig) -> str:
    """Open (and close) the pin factory, check the metrics library; ConfigError naming the key if not."""
    from table_runtime.runtime.assembly import gpio_chip_number

    chip = gpio_chip_number(config)
    try:
        opened = open_pin_factory(config.devices.panel_pin_factory, chip)
    except PanelDeviceError as error:
        raise ConfigError("devices.panel_pin_factory", str(error)) from error
    if config.metrics.enabled and importlib.util.find_spec("prometheus_client") is None:
        raise ConfigError("metrics", "prometheus_client is not installed: install the `metrics` extra "
                                     "(pip install -c constraints.txt '.[metrics]')")
    return f"the GPIO pin factory {opened}"
