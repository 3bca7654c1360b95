"""`table-runtime feed`: read the MQTT feed (`tail`), or publish a journal to it (`publish`).

Credentials: ``--username`` or TABLE_MQTT_USERNAME; ``--password-file``,
TABLE_MQTT_PASSWORD_FILE or TABLE_MQTT_PASSWORD. Never on the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from table_runtime.errors import JournalError
from table_runtime.feed.consumer import ConnectionNews, FeedConsumer, Received
from table_runtime.feed.messages import DEFAULT_PREFIX, TOPIC_NAMES
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings, credentials, parse_broker_url, tls_context
from table_runtime.journal import Journal, journal_path

EXIT_GAPS = 3
EXIT_CHAIN = 4  # --verify: rows rewritten, cut from the journal, or a broken chain
EXIT_NEW_JOURNAL = 5  # the table started a new journal (and nothing worse was seen)


def _connection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", required=True, help="broker URL: mqtt://host[:port] or mqtts://host[:port]")
    parser.add_argument("--prefix", default=DEFAULT_PREFIX, help=f"topic prefix (default {DEFAULT_PREFIX})")
    parser.add_argument("--username", help="broker user name (or TABLE_MQTT_USERNAME)")
    parser.add_argument("--password-file", type=Path, help="file holding the broker password")
    parser.add_argument("--ca-file", type=Path, help="mqtts: CA certificate(s) to trust")
    parser.add_argument("--cert-file", type=Path, help="mqtts: client certificate")
    parser.add_argument("--key-file", type=Path, help="mqtts: client key")
    parser.add_argument("--client-id", help="MQTT client id")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("feed", help="read or publish the MQTT feed")
    actions = parser.add_subparsers(dest="feed_command", required=True, metavar="ACTION")

    tail = actions.add_parser("tail", help="print a table's events as they arrive; flag gaps in seq")
    _connection_options(tail)
    tail.add_argument("--table", help="one table id (default: every table under the prefix)")
    tail.add_argument("--topic", default="events", choices=TOPIC_NAMES, help="which topic (default events)")
    tail.add_argument("--json", action="store_true", help="print each message as one JSON line")
    tail.add_argument("--count", type=int, help="exit after this many messages (exit 3 if a gap was seen)")
    tail.add_argument("--after", type=int, help="the last seq already handled: a later first seq is a gap")
    tail.add_argument("--persistent", action="store_true", help="persistent session (needs --client-id)")
    tail.add_argument("--verify", action="store_true",
                      help="re-compute the hash chain of the events and follow the retained head: report rows "
                           "rewritten or cut from the journal (exit 4 with --count) and a new journal (exit 5)")
    tail.add_argument("--retry-max", type=float, default=5.0,
                      help="most seconds between attempts while the broker cannot be reached (default 5)")
    tail.set_defaults(handler=run_tail)

    publish = actions.add_parser("publish", help="publish a journal to the broker until stopped (SIGTERM/SIGINT)")
    _connection_options(publish)
    publish.add_argument("--fallback-url", action="append", default=[], dest="fallback_urls", metavar="URL",
                         help="a broker to use while --url cannot be (repeat for more, tried in order)")
    source = publish.add_mutually_exclusive_group(required=True)
    source.add_argument("--data-dir", type=Path, help="the table's data directory (holds journal.db)")
    source.add_argument("--journal", type=Path, help="a journal file")
    publish.add_argument("--table-id", required=True)
    publish.add_argument("--poll-interval", type=float, default=0.25, help="seconds between journal checks")
    publish.add_argument("--batch-size", type=int, default=500)
    publish.add_argument("--replay-secret-env", metavar="VARIABLE",
                         help="answer the floor's replay requests signed with the secret this environment variable "
                              "holds (default: no replay)")
    publish.set_defaults(handler=run_publish)


def _feed_mapping(args: argparse.Namespace) -> dict[str, Any]:
    mapping: dict[str, Any] = {"url": args.url, "prefix": args.prefix}
    if getattr(args, "fallback_urls", None):
        mapping["fallback_urls"] = list(args.fallback_urls)
    for key in ("username", "password_file", "ca_file", "cert_file", "key_file", "client_id"):
        value = getattr(args, key)
        if value is not None:
            mapping[key] = value
    return mapping


def run_tail(args: argparse.Namespace) -> int:
    broker, url_user = parse_broker_url(args.url)
    mapping = _feed_mapping(args)
    username, password = credentials(mapping, url_user, os.environ)
    consumer = FeedConsumer(
        broker,
        prefix=args.prefix,
        table_id=args.table,
        topic=args.topic,
        username=username,
        password=password,
        tls_context=tls_context(broker, args.ca_file, args.cert_file, args.key_file),
        client_id=args.client_id,
        persistent=args.persistent,
        on_connection=_say,
        backoff_max=args.retry_max,
        verify=args.verify,
    )
    if args.after is not None and args.table:
        consumer.tracker.start_after(args.table, args.after)
    return asyncio.run(_tail(consumer, args.count, as_json=args.json))


async def _tail(consumer: FeedConsumer, count: int | None, *, as_json: bool) -> int:
    seen = 0
    stream = consumer.messages()
    try:
        async for received in stream:
            for finding in received.findings:
                print(json.dumps(finding.as_json()) if as_json else finding.text, flush=True)
            if received.is_head and consumer.topic != "head":
                continue  # followed by --verify, not printed
            print(_format(received, as_json=as_json), flush=True)
            seen += 1
            if count is not None and seen >= count:
                break
    finally:
        await stream.aclose()
    if consumer.check.kinds & {"broken", "rewritten", "truncated"}:
        return EXIT_CHAIN
    if "new_journal" in consumer.check.kinds:
        return EXIT_NEW_JOURNAL
    return EXIT_GAPS if consumer.tracker.gaps else 0


def _say(news: ConnectionNews) -> None:
    """The broker's reachability on stderr (stdout is the messages): connected, or unreachable and retrying."""
    print(f"feed tail: {news.text}", file=sys.stderr, flush=True)


def _format(received: Received, *, as_json: bool) -> str:
    message, observation = received.message, received.observation
    lines = []
    if observation.missing is not None:
        first, last = observation.missing
        if as_json:
            lines.append(json.dumps({"type": "Gap", "table_id": received.table_id, "first": first, "last": last}))
        else:
            lines.append(f"GAP {received.table_id}: seq {first}..{last} missing ({last - first + 1})")
    if as_json:
        lines.append(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
    else:
        ts = message.get("ts")
        when = (
            datetime.datetime.fromtimestamp(ts, tz=datetime.UTC).isoformat(timespec="milliseconds")
            if isinstance(ts, (int, float))
            else "?"
        )
        detail = message.get("body", message.get("alarm", message.get("round", message.get("status",
                                                                                     message.get("hash")))))
        text = json.dumps(detail, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        lines.append(f"{received.table_id} {message.get('seq'):>8} {when} {message.get('type')} {text}")
    return "\n".join(lines)


def run_publish(args: argparse.Namespace) -> int:
    mapping = _feed_mapping(args)
    mapping.update(poll_interval=args.poll_interval, batch_size=args.batch_size)
    if args.replay_secret_env is not None:
        mapping["replay_secret_env"] = args.replay_secret_env
    settings = FeedSettings.from_mapping(mapping, table_id=args.table_id)
    path = args.journal if args.journal is not None else journal_path(args.data_dir)
    if not path.is_file():  # rather than creating an empty journal and publishing nothing
        raise JournalError(f"{path}: no journal here")
    with Journal.open(path) as journal:
        asyncio.run(_publish(settings, journal))
    return 0


async def _publish(settings: FeedSettings, journal: Journal) -> None:
    loop = asyncio.get_running_loop()
    async with FeedPublisher(settings, journal) as feed:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, feed.stop, f"stopped by {signal.Signals(signum).name}")
        try:
            await feed.run()
        finally:
            for signum in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(ValueError):
                    loop.remove_signal_handler(signum)
    print(f"feed: published up to seq {feed.cursor}", file=sys.stderr)
