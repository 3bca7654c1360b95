"""`table-runtime run --config FILE`: run a table until SIGTERM or SIGINT (what the systemd unit starts).

A bad configuration prints every problem with its key and exits 2 before
anything is opened; so does anything else the table refuses to start with
(a chip registry that is not there, a journal written under other terms, a
GPIO chip that does not exist). The unit lists 2 in ``RestartPreventExitStatus=``:
systemd does not restart it every 2 s, and ``systemctl status`` shows the key
in its status line. On SIGTERM/SIGINT the app notes "Stopping" in the journal,
lets the feed publish what is left and its ``offline`` status, closes the
devices, then the journal: every input was committed whole before it took
effect, so nothing is half-written. Exit 0 after a signal. A journal that cannot
be written at start (a full or read-only card) is one line and exit 1: systemd
restarts it until the card takes rows again (docs/journal.md).

Under systemd (table_runtime/runtime/systemd.py): READY once the journal is
replayed and every device is open, WATCHDOG pings from the event loop, a
STATUS line, log lines at journald's priorities. Before the journal is opened
it waits for a synchronised clock (table_runtime/runtime/clock_sync.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from table_runtime.commands.arguments import employee_id
from table_runtime.commands.config import checked_config
from table_runtime.config import ConfigInvalidError, TableConfig, describe
from table_runtime.errors import ConfigError, TableError
from table_runtime.journal import JournalUnwritableError
from table_runtime.loop_errors import log_loop_errors
from table_runtime.runtime.clock_sync import (
    FOLLOW_SECONDS,
    POLL_SECONDS,
    ClockProbe,
    follow_clock,
    system_clock_synchronised,
    wait_for_clock,
)
from table_runtime.runtime.systemd import Notifier, log_handler, stderr_is_journal
from table_runtime.version import installed_version

if TYPE_CHECKING:
    from table_runtime.runtime.assembly import AssembledTable

log = logging.getLogger("table_runtime.run")

EXIT_JOURNAL_UNWRITABLE = 1  # the journal cannot be written (disk full, read-only, I/O error): restarted
EXIT_REFUSED = 2  # a configuration or state the table refuses to start with: not worth restarting (the unit)
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
START_MARGIN_S = 30.0  # EXTEND_TIMEOUT_USEC beyond the clock wait's next poll


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("run", help="run a table from its configuration file until SIGTERM")
    parser.add_argument("--config", required=True, help="the table's TOML file, e.g. /etc/table-runtime/table.toml")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="logging to stderr (the systemd journal; timestamped elsewhere); default INFO")
    parser.add_argument("--changed-by", type=employee_id, default=None, metavar="EMPLOYEE",
                        help="who changed the configuration (an employee id): named by the journal's terms row "
                             "when this start finds the zones or house settings changed (docs/events.md)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    journal = stderr_is_journal()
    # journald stamps each line itself; elsewhere the line carries its time
    fmt = LOG_FORMAT if journal else f"%(asctime)s.%(msecs)03d {LOG_FORMAT}"
    logging.basicConfig(level=args.log_level, handlers=[log_handler(sys.stderr, journal=journal, fmt=fmt)])
    notifier = Notifier()
    error_prefix = "<3>" if journal else ""  # sd-daemon(3): err
    try:
        config = checked_config(args.config)
    except ConfigInvalidError as error:
        count = len(error.problems)
        print(f"{error_prefix}{args.config}: {count} problem{'s' if count != 1 else ''}", file=sys.stderr)
        for problem in error.problems:
            print(f"{error_prefix}  {problem.key}: {problem.message}", file=sys.stderr)
        first = error.problems[0] if error.problems else error
        more = f" (and {count - 1} more)" if count > 1 else ""
        notifier.status(f"bad configuration, not restarted: {first.key}: {first.message}{more}")
        return EXIT_REFUSED
    try:
        return asyncio.run(serve(config, notifier=notifier, changed_by=args.changed_by))
    except JournalUnwritableError as error:
        # Not the configuration's fault and not for good (a full or failing card): exit 1, so systemd
        # restarts it every RestartSec=, and it plays again once the card takes rows (docs/journal.md).
        print(f"{error_prefix}table-runtime: error: {error}", file=sys.stderr)
        notifier.status(f"cannot start, restarted: {error}")
        return EXIT_JOURNAL_UNWRITABLE
    except TableError as error:
        print(f"{error_prefix}table-runtime: error: {error}", file=sys.stderr)
        notifier.status(f"refused to start, not restarted: {error}")
        return EXIT_REFUSED


async def serve(
    config: TableConfig,
    *,
    notifier: Notifier | None = None,
    clock_probe: ClockProbe = system_clock_synchronised,
    clock_poll_seconds: float = POLL_SECONDS,
    clock_follow_seconds: float = FOLLOW_SECONDS,
    on_assembled: Callable[[AssembledTable], None] | None = None,
    changed_by: str | None = None,
) -> int:
    """Wait for the clock, assemble the table, run it until a signal, shut it down cleanly. Returns the exit status."""
    from table_runtime.runtime.assembly import assemble

    log_loop_errors()  # a library's callback failing (the broker's socket closed under it) is one log line
    notifier = notifier if notifier is not None else Notifier({})
    clock = ClockState(await _wait_for_clock(config, notifier, clock_probe, clock_poll_seconds))
    log.info("table-runtime %s starting: %s", installed_version(), describe(config))
    notifier.status(f"starting table {config.table_id}: opening the journal and the devices")
    with assemble(config, changed_by=changed_by) as table:
        if on_assembled is not None:
            on_assembled(table)
        app = table.app
        loop = asyncio.get_running_loop()
        received: list[str] = []

        def on_signal(name: str) -> None:
            if not received:
                log.info("%s: stopping", name)
                notifier.stopping(f"stopping ({name}): the feed publishes its last rows, then the devices close")
            received.append(name)
            app.stop(name)

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal, sig.name)
        try:
            if table.controller.recovered:
                log.warning("recovered an interrupted round from %s", table.journal.path)
            if clock.synchronised is False:
                table.controller.note({"type": "ClockUnsynchronised", "table_id": config.table_id,
                                       "waited_seconds": config.clock.sync_wait_seconds})
                log.warning("the clock is not synchronised (NTP) after waiting %gs: playing; the journal's times are "
                            "not trusted until its ClockSynchronised row", config.clock.sync_wait_seconds)
            if app.display is not None:
                # The port is bound once run() enters the display; announce it from the first change.
                log.info("dealer display on http://%s:%d/", config.display.host, config.display.port)
            async with contextlib.AsyncExitStack() as stack:
                if config.metrics.enabled:
                    await _serve_metrics(table, config, clock, stack)
                first_change = app.changed  # set once every device is open and the first snapshot is out
                async with asyncio.TaskGroup() as tasks:
                    helpers = [tasks.create_task(_announce_ready(first_change, notifier, table)),
                               tasks.create_task(notifier.keep_alive(lambda: status_line(table)))]
                    if clock.synchronised is False:
                        helpers.append(tasks.create_task(follow_clock(
                            clock_probe, lambda: clock.synchronised_now(table), every=clock_follow_seconds)))
                    await app.run()
                    for helper in helpers:
                        helper.cancel()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
        last_seq = table.journal.last_seq
    log.info("stopped; journal %s closed at seq %d", config.journal_path, last_seq)
    return 0


class ClockState:
    """Whether the clock is synchronised (None: cannot tell), as start-up found it and as it changes."""

    def __init__(self, synchronised: bool | None) -> None:
        self.synchronised = synchronised

    def synchronised_now(self, table: AssembledTable) -> None:
        self.synchronised = True
        controller = table.controller
        table.app.later(lambda: controller.step(controller.note, {"type": "ClockSynchronised",
                                                                  "table_id": table.config.table_id}))
        log.info("the clock is synchronised (NTP): the journal's times are trusted again")


async def _wait_for_clock(config: TableConfig, notifier: Notifier, probe: ClockProbe, poll: float) -> bool | None:
    """Before any row is written: wait (bounded) for NTP; returns whether the clock is synchronised."""
    wait = config.clock.sync_wait_seconds
    if wait <= 0:
        return await asyncio.to_thread(probe)

    def waiting(remaining: float) -> None:
        notifier.extend_start(poll + START_MARGIN_S, f"waiting up to {remaining:.0f}s for the clock to be "
                                                     "synchronised (NTP) before opening the journal")

    state = await wait_for_clock(probe, within=wait, on_wait=waiting, poll=poll)
    if state is None:
        log.info("cannot tell whether the clock is synchronised (no timesyncd, no timedatectl): not waiting")
    return state


async def _serve_metrics(table: AssembledTable, config: TableConfig, clock: ClockState,
                         stack: contextlib.AsyncExitStack) -> None:
    try:
        from table_runtime.metrics import TableMetrics
    except ImportError as error:
        raise ConfigError("metrics", f"prometheus_client is not installed ({error}): install the `metrics` "
                                     "extra") from error
    metrics = TableMetrics(table.app, clock_synchronised=lambda: clock.synchronised)
    host = config.metrics.host
    try:
        port = await stack.enter_async_context(metrics.serving(host, config.metrics.port or 0))
    except OSError as error:
        raise ConfigError("metrics.port", f"cannot listen on {host}:{config.metrics.port}: "
                                          f"{error.strerror or error}") from error
    log.info("metrics on http://%s:%d/metrics", host, port)


async def _announce_ready(first_change: asyncio.Event, notifier: Notifier, table: AssembledTable) -> None:
    await first_change.wait()
    notifier.ready(status_line(table))
    log.info("ready: %s", status_line(table))


def status_line(table: AssembledTable) -> str:
    """What `systemctl status` shows while the table runs."""
    controller = table.controller
    view = controller.committed  # as the journal has it, even while a step is being journaled
    devices = ", ".join(f"{name} {status}" for name, status in view.snapshot["devices"].items())
    alarms = len(view.alarm_kinds)
    return (f"table {controller.table_id}: {view.round_label}; {devices}; "
            f"{alarms} alarm{'s' if alarms != 1 else ''} open")
