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
import io
import logging
import os
import signal
import sys
from collections.abc import Mapping
from typing import Any

from table_runtime.commands.config import checked_config, print_problems
from table_runtime.config import ConfigInvalidError, TableConfig, describe
from table_runtime.version import installed_version

log = logging.getLogger("table_runtime.run")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("run", help="run a table from its configuration file until SIGTERM")
    parser.add_argument("--config", required=True, help="the table's TOML file, e.g. /etc/table-runtime/table.toml")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="logging to stderr (the systemd journal; timestamped elsewhere); default INFO")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = checked_config(args.config)
    except ConfigInvalidError as error:
        print_problems(args.config, error.problems, sys.stderr)
        return 2
    configure_logging(args.log_level)
    return asyncio.run(serve(config))


def stderr_is_journald(environ: Mapping[str, str] = os.environ) -> bool:
    """True when stderr is the systemd journal's stream (JOURNAL_STREAM names its device:inode)."""
    device, _, inode = environ.get("JOURNAL_STREAM", "").partition(":")
    try:
        status = os.fstat(sys.stderr.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    return f"{status.st_dev}:{status.st_ino}" == f"{device}:{inode}"


def configure_logging(level: str) -> None:
    """Log lines on stderr with their level; with a timestamp unless the journal stamps them itself."""
    stamp = "" if stderr_is_journald() else "%(asctime)s.%(msecs)03d "
    logging.basicConfig(level=level, stream=sys.stderr, format=f"{stamp}%(levelname)s %(name)s: %(message)s",
                        datefmt="%Y-%m-%d %H:%M:%S", force=True)


async def serve(config: TableConfig) -> int:
    """Assemble the table, run it until a signal, shut it down cleanly. Returns the exit status."""
    from table_runtime.runtime.assembly import assemble

    log.info("table-runtime %s starting: %s", installed_version(), describe(config))
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
