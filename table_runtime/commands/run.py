"""`table-runtime run --config FILE`: run a table until SIGTERM or SIGINT (what the systemd unit starts).

A bad configuration prints every problem with its key and exits 2 before
anything is opened. On SIGTERM/SIGINT the app notes "Stopping" in the journal,
lets the feed publish what is left and its ``offline`` status, closes the
devices, then the journal: every input was committed whole before it took
effect, so nothing is half-written. Exit 0 after a signal.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any

from table_runtime.commands.config import checked_config, print_problems
from table_runtime.config import ConfigInvalidError, TableConfig, describe

log = logging.getLogger("table_runtime.run")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("run", help="run a table from its configuration file until SIGTERM")
    parser.add_argument("--config", required=True, help="the table's TOML file, e.g. /etc/table-runtime/table.toml")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="logging to stderr (the systemd journal); default INFO")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = checked_config(args.config)
    except ConfigInvalidError as error:
        print_problems(args.config, error.problems, sys.stderr)
        return 2
    logging.basicConfig(level=args.log_level, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    return asyncio.run(serve(config))


async def serve(config: TableConfig) -> int:
    """Assemble the table, run it until a signal, shut it down cleanly. Returns the exit status."""
    from table_runtime.runtime.assembly import assemble

    log.info("starting: %s", describe(config))
    with assemble(config) as table:
        app = table.app
        loop = asyncio.get_running_loop()
        received: list[str] = []

        def on_signal(name: str) -> None:
            if not received:
                log.info("%s: stopping", name)
            received.append(name)
            app.stop(name)

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal, sig.name)
        try:
            if table.controller.recovered:
                log.warning("recovered an interrupted round from %s", table.journal.path)
            if app.display is not None:
                # The port is bound once run() enters the display; announce it from the first change.
                log.info("dealer display on http://%s:%d/", config.display.host, config.display.port)
            await app.run()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
        last_seq = table.journal.last_seq
    log.info("stopped; journal %s closed at seq %d", config.journal_path, last_seq)
    return 0
