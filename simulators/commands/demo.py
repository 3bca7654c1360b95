"""`table-runtime demo`: a whole table with nothing attached.

Live (default): the simulated shoe on a pty, the simulated chip reader behind
pyusb, mock GPIO buttons, a simulated dealer and basic-strategy players at a
watchable pace, the dealer display on --http and (with --mqtt) the feed.
The simulated shoe, chip reader and chips run in a process of their own
(`table-sim devices`), as a real table's devices outlive a power cut of its
controller: the demo killed (kill -9) and restarted on the same --data-dir
reattaches to them and finds the chips where they lay. `--devices-in-process`
keeps them in the demo's process (they die with it: a restart after a kill
finds the zones empty, and the chip watch raises alarms for the chips it lost).
`--fast`: the same controller, journal and recovery with the devices' actions
fed straight in, as fast as the journal commits: no devices, no chips on the
zones, so nothing to keep through a kill and no devices process (the device
options do nothing there). Restarted on the same --data-dir after a kill, it
resumes the interrupted round from the journal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from simulators.demo_tray import tray_rows
from simulators.strategy_cache import remember_cached
from table_runtime.commands.table_line import table_line
from table_runtime.config import ENV_PIT_TOKEN, ENV_SUPERVISOR_PIN, zone_names
from table_runtime.errors import ConfigError, JournalError
from table_runtime.game.rules import PROFILES, TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.loop_errors import run_logged
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import euros


class _DefaultsHelp(argparse.ArgumentDefaultsHelpFormatter):
    """`--help` shows each default, except where there is none (or a flag is off)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False):
            return action.help
        return super()._get_help_string(action)


# The key of the demo players' pseudonyms (docs/protocols/player_card.md).
DEMO_CARD_SECRET = b"the demo table's player card secret: no casino's"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="run a whole simulated table (display on --http)",
                                   description=__doc__.splitlines()[0], formatter_class=_DefaultsHelp)
    parser.add_argument("--rounds", type=int, default=None, help="stop after N rounds (default: run until stopped)")
    parser.add_argument("--fast", action="store_true", help="no transports, no pause: as fast as possible")
    parser.add_argument("--seed", type=int, default=7, help="seed of the shoe, the players and the dealer")
    parser.add_argument("--data-dir", help="journal directory, kept (default: a fresh private one, removed at "
                                           "the end)")
    parser.add_argument("--http", default="127.0.0.1:8080", help="the dealer display (HOST:PORT; 'off' for none)")
    parser.add_argument("--mqtt", help="publish the feed to this broker, e.g. mqtt://127.0.0.1:1883")
    parser.add_argument("--mqtt-prefix", default="casino", help="topic prefix")
    parser.add_argument("--table-id", default="DEMO1", help="the table id in the feed's topics")
    parser.add_argument("--profile", default="fr-casino", choices=sorted(PROFILES), help="the rules")
    parser.add_argument("--pace", type=float, default=0.6, help="seconds between the dealer's actions (live)")
    parser.add_argument("--error-rate", type=float, default=0.05, help="how often the simulated dealer errs")
    parser.add_argument("--buy-in-cents", type=int, default=0,
                        help="the players' buy-in the dealer records at each new shoe, in cents (live; 0: none)")
    parser.add_argument("--seance-rounds", type=int, default=0,
                        help="the dealer opens a séance, and closes it with the tray counted, every K rounds; asks "
                             "for fills, takes buy-ins and tips (0: no séance; docs/accounts.md)")
    parser.add_argument("--manual-tray", action="store_true",
                        help="live, with --seance-rounds: the dealer counts the tray by hand; by default the table "
                             "reads its tray by RFID (its rows on the reader) and counts the opener and the closer "
                             "from that read, and reconciles the tray after every round (docs/accounts.md)")
    parser.add_argument("--supervisor-pin",
                        help=f"4 to 8 digits that clear the supervisor's alarms and VOID on the display "
                             f"(or {ENV_SUPERVISOR_PIN}; default: none, those alarms stay)")
    parser.add_argument("--pit-token",
                        help=f"at least 16 characters: the pit view at http://HOST:PORT/?pit=TOKEN "
                             f"(or {ENV_PIT_TOKEN}; default: no pit view)")
    devices = parser.add_mutually_exclusive_group()
    devices.add_argument("--devices-process", dest="devices_in_process", action="store_false",
                         default=False,
                         help="the default: the simulated devices in their own process (table-sim devices), kept "
                              "through a kill -9 of the demo (a demo restarted on the same --data-dir reattaches to "
                              "them); --fast has no devices")
    devices.add_argument("--devices-in-process", dest="devices_in_process", action="store_true",
                         default=False,
                         help="live: the simulated devices in the demo's process: they die with it, and a restart "
                              "after a kill finds the zones empty (chip alarms)")
    parser.add_argument("--staff", action="store_true",
                        help="live: a staff registry of simulated dealers and a supervisor (in the data directory): "
                             "the dealers take the table in turn by their badges at the table's reader, the "
                             "supervisor clears his alarms by name, and the table deals only with a dealer logged in")
    parser.add_argument("--rotate-minutes", type=float, default=30.0,
                        help="with --staff: minutes of play between two dealers' rotations")
    parser.add_argument("--first-dealer", type=int, default=1,
                        help="with --staff: which simulated dealer (1-4) takes the table first; the others follow")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(handler=run)


def _secrets(args: argparse.Namespace) -> None:
    """From the options, else the environment (never shown by --help); the rules of table_runtime.config."""
    args.supervisor_pin = args.supervisor_pin or os.environ.get(ENV_SUPERVISOR_PIN) or None
    args.pit_token = args.pit_token or os.environ.get(ENV_PIT_TOKEN) or None
    pin, token = args.supervisor_pin, args.pit_token
    if pin is not None and not (pin.isdigit() and 4 <= len(pin) <= 8):
        raise ConfigError("--supervisor-pin", "the supervisor PIN is 4 to 8 digits")
    if token is not None and len(token) < 16:
        raise ConfigError("--pit-token", "the pit token is at least 16 characters")


def _http(text: str) -> tuple[str, int] | None:
    if text == "off":
        return None
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError("--http", f"{text!r}: HOST:PORT, e.g. 127.0.0.1:8080, or 'off'")
    return host, int(port)


def _tray(args: argparse.Namespace) -> bool:
    """The live demo reads its chip tray by RFID when it keeps séances, unless counted by hand (--manual-tray)."""
    return bool(args.seance_rounds) and not args.fast and not args.manual_tray


def _loopback(host: str) -> bool:
    from table_runtime.display.request_guard import is_loopback_host  # the display's own rule (imports aiohttp)

    return is_loopback_host(host)


def run(args: argparse.Namespace) -> int:
    if args.rounds is not None and args.rounds < 0:
        raise ConfigError("--rounds", "a whole number >= 0")
    if args.buy_in_cents < 0:
        raise ConfigError("--buy-in-cents", "a whole number of cents >= 0")
    if args.rotate_minutes <= 0:
        raise ConfigError("--rotate-minutes", "a number of minutes above 0")
    if not 1 <= args.first_dealer <= 4:
        raise ConfigError("--first-dealer", "one of the simulated dealers, 1 to 4")
    if args.staff and args.fast:
        raise ConfigError("--staff", "the dealers badge at the live table's reader: not with --fast")
    if args.seance_rounds < 0:
        raise ConfigError("--seance-rounds", "a whole number of rounds >= 0 (0: no séance)")
    _secrets(args)
    http = _http(args.http)
    if http is not None and args.pit_token is None and not args.fast and not _loopback(http[0]):
        raise ConfigError("--http", f"{http[0]!r} serves the display to other machines: that needs --pit-token "
                                    f"(or {ENV_PIT_TOKEN}), else 127.0.0.1")
    # Without --data-dir: a fresh directory of this user's alone (mkdtemp: mode 0700), removed at the end.
    kept = args.data_dir is not None
    data_dir = Path(args.data_dir) if kept else Path(tempfile.mkdtemp(prefix="table-demo-"))
    rules = profile(args.profile)
    remember_cached(rules)  # solved at the first start only (strategy_cache.py)
    try:
        journal = Journal.open(journal_path(data_dir))
        try:
            controller = TableController(table_id=args.table_id, rules=rules, limits=TableLimits(), journal=journal,
                                         clock=time.time,  # fast: no chips; the hyper field's cases where open
                                         zones=() if args.fast else (*zone_names(rules.boxes,
                                                                                 hyper=rules.hyper_blackjack),
                                                                      *(tray_rows() if _tray(args) else ())),
                                         staff=args.staff)
            summary = _fast(args, controller) if args.fast else run_logged(_live(args, controller, data_dir))
        finally:
            journal.close()
    finally:
        if not kept:
            shutil.rmtree(data_dir, ignore_errors=True)
    summary["data_dir"] = str(data_dir)
    summary["data_kept"] = kept
    where = f"data in {data_dir}" if kept else "data removed (--data-dir DIR keeps it)"
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(f"{summary['rounds']} round(s) played; {where}"
              + ("; resumed an interrupted round" if summary["recovered"] else ""))
        for kind, count in sorted(summary["alarms"].items()):
            print(f"  alarm {kind}: {count}")
        for box, net in sorted(summary["net_by_box"].items()):
            print(f"  box{box}: players {'won' if net >= 0 else 'lost'} {euros(abs(net))}")
        for seance in summary.get("seances", ()):
            win = "open" if seance["win_cents"] is None else euros(seance["win_cents"])
            print(f"  séance {seance['seance']}: opener {euros(seance['opener_cents'])}, fills "
                  f"{euros(seance['fills_cents'])}, credits {euros(seance['credits_cents'])}, drop "
                  f"{euros(seance['drop_cents'])}, tips {euros(seance['tips_cents'])}, win {win}")
    return 0


def _fast(args: argparse.Namespace, controller: TableController) -> dict[str, Any]:
    from simulators.fast_table import FastTable

    rounds = 50 if args.rounds is None else args.rounds
    _audit_first(controller)
    table = FastTable(controller, seed=args.seed, error_rate=args.error_rate, seance_rounds=args.seance_rounds)
    if args.mqtt:
        summary = run_logged(_fast_with_feed(args, controller, table, rounds))
    else:
        summary = table.run(rounds, on_round=_progress(args, rounds))
    return {"rounds": summary.rounds, "alarms": summary.alarms, "recovered": summary.recovered,
            "net_by_box": {str(box): net for box, net in sorted(summary.net_by_box.items())},
            "journal_rows": controller.journal.last_seq,
            **({"seances": seance_summary(controller, summary.players_net_by_seance)} if args.seance_rounds else {})}


SEANCE_FIGURES = ("seance", "open", "rounds", "opener_cents", "fills_cents", "fills", "credits_cents", "credits",
                  "drop_cents", "drop_cash_cents", "drop_marker_cents", "closer_cents", "tips_cents", "tips",
                  "orphans_cents", "win_cents")


def seance_summary(controller: TableController, players_net: dict[int, int]) -> list[dict[str, Any]]:
    """The séances the demo played: the table's figures (the fold's, core/seance.py) and the players' settled net
    as the demo counted it (the check: win = −players' net, to the cent)."""
    out = []
    for account in controller.core.seances.all:
        figures = account.figures()
        out.append({**{key: figures[key] for key in SEANCE_FIGURES},
                    "players_net_cents": players_net.get(account.number, 0)})
    return out


def _audit_first(controller: TableController) -> None:
    """The fast table has no event loop to audit the older rows beside play: they are audited before it, and a
    journal broken before the start's checkpoint is refused like one broken after it."""
    from table_runtime.journal.audit import AuditBreak
    from table_runtime.runtime.journal_audit import audit_journal

    found: list[AuditBreak] = []
    asyncio.run(audit_journal(controller, pause_s=0, on_broken=found.append))
    if found:
        raise JournalError(f"{controller.journal.path}: {found[0].reason}")


def _progress(args: argparse.Namespace, rounds: int) -> Any:
    if args.json or not sys.stderr.isatty():
        return None
    return lambda summary: print(f"\rround {summary.rounds}/{rounds}", end="", file=sys.stderr, flush=True)


async def _fast_with_feed(args: argparse.Namespace, controller: TableController, table: Any, rounds: int) -> Any:
    from table_runtime.feed.publisher import FeedPublisher
    from table_runtime.feed.settings import FeedSettings

    settings = FeedSettings.from_mapping({"url": args.mqtt, "prefix": args.mqtt_prefix}, table_id=args.table_id)
    async with FeedPublisher(settings, controller.journal) as feed:
        loop = asyncio.get_running_loop()
        def wake() -> None:
            loop.call_soon_threadsafe(feed.notify)

        controller.subscribe(wake)
        runner = asyncio.create_task(feed.run())
        summary = await asyncio.to_thread(table.run, rounds)
        async with asyncio.timeout(60):
            await feed.wait_published(controller.journal.last_seq)
        feed.stop("demo finished")
        await runner
    return summary


async def _live(args: argparse.Namespace, controller: TableController, data_dir: Path) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from drivers.player_card import EvdevCardReader
    from simulators.device_link import attach_devices, devices_running
    from simulators.live_table import LiveDevices, TableDevices, deal_rounds
    from simulators.player_card import SimulatedCardReader
    from table_runtime.runtime.card_link import CardReaderAt, PlayerCardLink

    recovered = controller.recovered
    extra: dict[str, Any] = {}
    http = _http(args.http)
    if args.mqtt:  # the feed and the display are imported only when asked for: a restart comes back sooner
        from table_runtime.feed.publisher import FeedPublisher
        from table_runtime.feed.settings import FeedSettings

        # before the devices: a bad --mqtt is refused without leaving a devices process behind
        extra["feed"] = FeedPublisher(FeedSettings.from_mapping({"url": args.mqtt, "prefix": args.mqtt_prefix},
                                                                table_id=args.table_id), controller.journal)
    pin_factory = MockFactory(pin_class=MockPWMPin)
    # The table's player card reader: a simulated reader's FIFO, read by the real driver (docs/protocols/player_card.md)
    card_reader = SimulatedCardReader(data_dir / "player-card.fifo")
    staff = rotation = None
    if args.staff:  # simulated staff: their badges at the same reader (simulators/staff.py)
        from simulators.staff import DealerRotation, demo_staff_registry
        from table_runtime.runtime.staff_desk import StaffDesk

        registry = demo_staff_registry(data_dir / "staff.sqlite", DEMO_CARD_SECRET)
        staff = StaffDesk(controller, registry, secret=DEMO_CARD_SECRET, clock=time.monotonic)
        rotation = DealerRotation(time.monotonic, every_seconds=args.rotate_minutes * 60.0,
                                  first=args.first_dealer - 1)
        extra["staff"] = staff
    extra["player_cards"] = PlayerCardLink(controller, [CardReaderAt(EvdevCardReader(card_reader.path))],
                                           secret=DEMO_CARD_SECRET, staff=staff)
    devices: TableDevices
    where = "in-process"
    if not args.devices_in_process or devices_running(data_dir):  # devices left running are reattached to
        devices, reattached = attach_devices(controller, seed=args.seed, data_dir=data_dir, pin_factory=pin_factory,
                                             tray=_tray(args))
        where = "reattached" if reattached else "started"
        if not args.json:
            print(f"devices process: {where} ({data_dir / 'devices.json'})", file=sys.stderr)
    else:
        devices = LiveDevices(controller, seed=args.seed, data_dir=data_dir, pin_factory=pin_factory,
                              tray=_tray(args))
    try:
        devices.start()
        card_reader.start()
        app = devices.app(controller, **extra)
        if http is not None:
            from table_runtime.display.server import DisplayServer

            app.display = DisplayServer(app, host=http[0], port=http[1], language="fr",
                                        supervisor_pin=args.supervisor_pin, pit_token=args.pit_token, staff=staff)
        _print_steps(controller, quiet=args.json)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, app.stop, "signal")
        runner = asyncio.create_task(app.run())
        if http is not None and not args.json:
            print(f"dealer display: http://{http[0]}:{http[1]}/"
                  + ("" if args.supervisor_pin else "; no supervisor PIN (--supervisor-pin): "
                     "the supervisor's alarms cannot be cleared"), file=sys.stderr)
            if args.pit_token:
                # the token is a secret: never printed, the operator has it already
                print(f"pit view: http://{http[0]}:{http[1]}/?pit=<the pit token>", file=sys.stderr)
        played = [0]  # rounds finished so far, also when a signal stops the demo
        players_net: dict[int, int] = {}  # the players' settled net by séance, as the demo counts it

        def count(done: int) -> None:
            played[0] = done

        try:
            dealer = asyncio.create_task(deal_rounds(app, devices, rounds=args.rounds, seed=args.seed,
                                                     pace=args.pace, error_rate=args.error_rate, on_round=count,
                                                     buy_in_cents=args.buy_in_cents, card_reader=card_reader,
                                                     rotation=rotation, seance_rounds=args.seance_rounds,
                                                     players_net=players_net))
            finished, _ = await asyncio.wait({dealer, runner}, return_when=asyncio.FIRST_COMPLETED)
            if dealer in finished:
                played[0] = dealer.result()
            else:
                dealer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await dealer
        finally:
            app.stop("demo finished")
            await runner
    finally:
        card_reader.stop()
        devices.stop()
    return {"rounds": played[0], "alarms": dict(controller.alarms.counts), "recovered": recovered,
            "net_by_box": {}, "journal_rows": controller.journal.last_seq, "devices": where,
            **({"seances": seance_summary(controller, players_net)} if args.seance_rounds else {})}


def _print_steps(controller: TableController, *, quiet: bool) -> None:
    """The live text view: one line per change of the table."""
    if quiet:
        return
    last = [controller.journal.last_seq]
    shown = [""]

    def show() -> None:
        snapshot = controller.snapshot()
        if snapshot["seq"] == last[0]:
            return
        last[0] = snapshot["seq"]
        # A row the line does not show (a device's status, an alarm's storm count, a zone read again with the
        # same chips) changes the seq, not the line: printed again it would repeat the line before it.
        line = table_line(snapshot)
        if line != shown[0]:
            shown[0] = line
            print(line, flush=True)

    controller.subscribe(show)
