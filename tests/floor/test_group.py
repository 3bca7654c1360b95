"""The group: three casinos' floors replicated into one group database by PostgreSQL's logical replication.

Four real clusters on loopback (three casinos, the group), each with `wal_level = logical`. Tables play into each
casino's floor through its real ingest; `table-floor group setup` publishes and subscribes; the group's answers
equal the sum of the casinos' own. One casino's link is cut (a relay between the group and that casino's server,
severed) while its tables play on, then restored: it catches up with no row missing or doubled. A casino added
later backfills what it held before it joined.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from casino_floor import group, partitions, queries, rating_queries
from casino_floor.group_config import group_config_from_mapping
from casino_floor.group_queries import group_money
from casino_floor.ingest import Ingest
from casino_floor.shifts import Shifts
from casino_floor.store import FloorStore
from simulators.postgres import PostgresServer, find_bin
from table_runtime.errors import ConfigError
from table_runtime.journal import Journal
from tests.floor.journals import feed_messages, play, play_on
from tests.floor.rating_messages import Played, session_messages
from tests.floor.support import connected, store_messages
from tests.floor.tcp_proxy import TcpProxy

LOGICAL = {"wal_level": "logical", "max_replication_slots": "20", "max_wal_senders": "20",
           "max_logical_replication_workers": "20", "max_worker_processes": "40",
           "wal_retrieve_retry_interval": "'200ms'", "wal_sender_timeout": "'5s'", "wal_receiver_timeout": "'5s'"}
CASINOS = ("paris", "nice", "lyon")
SHIFTS = Shifts()
FACTS = {"rounds": "table_id, journal, round", "buy_ins": "table_id, journal, seq",
         "alarms": "table_id, journal, alarm_id", "rated_sessions": "table_id, session, started_at",
         "rated_rounds": "table_id, session, started_at, round_id", "journals": "table_id, journal"}


@pytest.fixture(scope="module")
def clusters() -> Iterator[dict[str, PostgresServer]]:
    if find_bin() is None:
        pytest.skip("PostgreSQL is not installed")
    with ExitStack() as stack:
        yield {name: stack.enter_context(PostgresServer(settings=LOGICAL)) for name in (*CASINOS, "group")}


@pytest.fixture
async def databases(clusters: dict[str, PostgresServer]) -> AsyncIterator[dict[str, str]]:
    """A fresh `floor` database on each casino's cluster and a `grp` one on the group's (dropped after)."""
    names = {name: ("grp" if name == "group" else "floor") + f"_{time.monotonic_ns() % 10**9}" for name in clusters}
    for name, server in clusters.items():
        async with connected(server.dsn) as admin:
            await admin.execute(f'CREATE DATABASE "{names[name]}"')
    try:
        yield {name: server.dsn_for(names[name]) for name, server in clusters.items()}
    finally:
        async with connected(clusters["group"].dsn_for(names["group"])) as grp:
            for subscription in await grp.fetch("SELECT subname FROM pg_subscription"):
                await grp.execute(f"ALTER SUBSCRIPTION {subscription['subname']} DISABLE")
                await grp.execute(f"ALTER SUBSCRIPTION {subscription['subname']} SET (slot_name = NONE)")
                await grp.execute(f"DROP SUBSCRIPTION {subscription['subname']}")
        for name, server in clusters.items():
            async with connected(server.dsn) as admin:
                if name != "group":
                    await admin.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                                        "WHERE database = $1 AND NOT active", names[name])
                await admin.execute(f'DROP DATABASE IF EXISTS "{names[name]}" WITH (FORCE)')


async def play_into(dsn: str, journal: Journal, table_id: str) -> None:
    """Every row of a table's journal stored at a casino's floor through its real ingest (again: only the new ones)."""
    store = await FloorStore.open(dsn)
    try:
        messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", table_id)
                    if name == "events"]
        await store_messages(store, Ingest(await store.load_tracks()), messages, now=time.time())
    finally:
        await store.close()


async def rate_into(dsn: str, table_id: str, first_seq: int, player: str) -> None:
    store = await FloorStore.open(dsn)
    try:
        started = dt.datetime.now(dt.UTC).replace(microsecond=0)
        sent = session_messages(table_id, first_seq, player, 2, started,
                                [Played(f"r{first_seq}-{k}", 2500, 500 * (k % 3) - 500, 13, 20) for k in range(4)])
        await store_messages(store, Ingest(), [("ratings", message) for message in sent], now=time.time())
    finally:
        await store.close()


async def facts(dsn: str, casino: str | None = None) -> dict[str, set[tuple[Any, ...]]]:
    """Every replicated fact row, whole, by table (at the group: those of one casino)."""
    where = "" if casino is None else " WHERE casino_id = $1"
    async with connected(dsn) as connection:
        out = {}
        for table, key in FACTS.items():
            rows = await connection.fetch(f"SELECT casino_id, * FROM {table}{where} ORDER BY {key}",
                                          *(() if casino is None else (casino,)))
            out[table] = {tuple((k, json.dumps(v, sort_keys=True, default=str)) for k, v in row.items()
                                if k != "updated_at") for row in rows}
        return out


async def until_replicated(databases: dict[str, str], casinos: tuple[str, ...], seconds: float = 60.0) -> None:
    """Until the group holds exactly each casino's facts (no row missing, none more)."""
    deadline = time.monotonic() + seconds
    while True:
        missing = []
        for casino in casinos:
            held, there = await facts(databases[casino]), await facts(databases["group"], casino)
            missing += [f"{casino}.{table}: {len(held[table])} at the casino, {len(there[table])} at the group"
                        for table in FACTS if held[table] != there[table]]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"not replicated within {seconds:g} s: {'; '.join(missing)}")
        await asyncio.sleep(0.2)


def group_mapping(databases: dict[str, str], clusters: dict[str, PostgresServer], casinos: tuple[str, ...],
                  ports: dict[str, int]) -> dict[str, Any]:
    return {"group": {"dsn": databases["group"], "casinos": [
        {"casino_id": casino, "dsn": databases[casino],
         "publisher": f"host=127.0.0.1 port={ports.get(casino, clusters[casino].port)} "
                      f"dbname={databases[casino].rsplit('/', 1)[1]}"} for casino in casinos]}}


async def money_of_casinos(databases: dict[str, str], casinos: tuple[str, ...], shift: str) -> dict[str, dict[str,
                                                                                                             int]]:
    """Each casino's own `query money` for the shift, summed over its tables."""
    out = {}
    for casino in casinos:
        async with connected(databases[casino]) as connection:
            rows = await queries.shift_money(connection, SHIFTS, shift)
        out[casino] = {key: sum(row[key] for row in rows)
                       for key in ("rounds", "handle_cents", "buy_ins", "drop_cents", "win_cents")}
    return out


@pytest.mark.slow
async def test_three_casinos_replicate_into_the_group_through_a_cut_and_a_late_casino(
        tmp_path: Path, clusters: dict[str, PostgresServer], databases: dict[str, str]) -> None:
    journals = {casino: {table: play(tmp_path / f"{casino}-{table}.db", table, 12, seed=seed)
                         for table, seed in (("T01", 3 + k), ("T02", 11 + k))}  # every casino has a T01
                for k, casino in enumerate(CASINOS)}
    relay = TcpProxy(clusters["nice"].port)  # the group reaches nice through a link the test can cut
    await relay.start()
    try:
        for casino in CASINOS:
            for table, journal in journals[casino].items():
                await play_into(databases[casino], journal, table)
            await rate_into(databases[casino], "T01", 100, "p-regular0001")  # one regular plays in every casino
        # lyon joins later: first paris and nice
        config = group_config_from_mapping(group_mapping(databases, clusters, CASINOS[:2], {"nice": relay.port}),
                                           environ={})
        done = await group.setup(config)
        assert [row["casino_id"] for row in done] == ["paris", "nice"] and all(row["subscribed_now"] for row in done)
        assert all(row["rows_named"] > 0 for row in done)  # the facts stored before the group existed
        await until_replicated(databases, CASINOS[:2])
        again = await group.setup(config)  # idempotent: nothing subscribed twice, nothing doubled
        assert not any(row["subscribed_now"] for row in again)

        # nice's link is cut while every casino plays on
        await relay.cut()
        for casino in CASINOS:
            for table, journal in journals[casino].items():
                play_on(journal, table, 6, seed=40)
                await play_into(databases[casino], journal, table)
        await rate_into(databases["nice"], "T02", 500, "p-regular0001")
        async with connected(databases["nice"]) as nice:
            held = await nice.fetchval("SELECT count(*) FROM rounds")
        await until_replicated(databases, ("paris",))
        async with connected(databases["group"]) as grp:
            assert await grp.fetchval("SELECT count(*) FROM rounds WHERE casino_id = 'nice'") < held
        status = {row["casino_id"]: row for row in await group.status(config)}
        assert status["nice"]["lag_bytes"] > 0 and status["paris"]["running"]
        await relay.start()  # restored: nice catches up, nothing missing, nothing doubled
        await until_replicated(databases, CASINOS[:2])

        # lyon added: its subscription copies what it held before joining, then follows
        config = group_config_from_mapping(group_mapping(databases, clusters, CASINOS, {"nice": relay.port}),
                                           environ={})
        assert [row["subscribed_now"] for row in await group.setup(config)] == [False, False, True]
        await until_replicated(databases, CASINOS)
        status = {row["casino_id"]: row for row in await group.status(config)}
        assert all(row["running"] and row["tables_copying"] == 0 for row in status.values()), status

        async with connected(databases["group"]) as grp:
            shifts = {SHIFTS.name_of(ts) for ts in [row["ts"] for row in await grp.fetch("SELECT ts FROM rounds")]}
            for shift in shifts:
                by_casino = {row["casino_id"]: row for row in await group_money(grp, SHIFTS, shift)}
                own = await money_of_casinos(databases, CASINOS, shift)
                assert {casino: {key: by_casino[casino][key] for key in own[casino]} for casino in own
                        if own[casino]["rounds"] or own[casino]["buy_ins"]} == {
                    casino: figures for casino, figures in own.items() if figures["rounds"] or figures["buy_ins"]}
            # the regular's sessions in every casino, under one pseudonym
            now = time.time()
            by_player = {row["player"]: row for row in await rating_queries.ratings(
                grp, SHIFTS, "player", now - 86_400, now + 86_400)}
            assert by_player["p-regular0001"]["sessions"] == 4 and by_player["p-regular0001"]["rounds"] == 16
            # two casinos' T01 apart at the group
            assert await grp.fetchval("SELECT count(DISTINCT casino_id) FROM rounds WHERE table_id = 'T01'") == 3
            # The rated sessions travel as their partitioned root: at the group each sits in its month too.
            assert {row[0] for row in await grp.fetch("SELECT tableoid::regclass::text FROM rated_sessions")} == {
                f"rated_sessions_{partitions.month_of(now):%Y_%m}"}
            held_at_group = await grp.fetchval("SELECT count(*) FROM rated_sessions WHERE casino_id = 'paris'")
            total_at_group = await grp.fetchval("SELECT count(*) FROM rated_sessions")
        # A casino's month dropped is DDL, which replication does not carry: the group keeps its copy until its own
        # retention drops the month there; the subscriptions run on.
        later = now + 400 * 86_400
        async with connected(databases["paris"]) as paris:
            assert (await partitions.keep(paris, later, ratings_days=30)).ratings.rows > 0
            assert await paris.fetchval("SELECT count(*) FROM rated_sessions") == 0
        async with connected(databases["group"]) as grp:
            assert await grp.fetchval("SELECT count(*) FROM rated_sessions WHERE casino_id = 'paris'") == held_at_group
        assert (await group.retention(config, 30, later)).ratings.rows == total_at_group
        async with connected(databases["group"]) as grp:
            assert await grp.fetchval("SELECT count(*) FROM rated_sessions") == 0
        await rate_into(databases["lyon"], "T02", 900, "p-regular0001")  # and the replication goes on
        async with asyncio.timeout(30):
            while True:
                async with connected(databases["group"]) as grp:
                    if await grp.fetchval("SELECT count(*) FROM rated_sessions WHERE casino_id = 'lyon'"):
                        break
                await asyncio.sleep(0.1)
        # the same through the commands
        path = tmp_path / "group.toml"
        path.write_text(group_toml(group_mapping(databases, clusters, CASINOS, {"nice": relay.port})), encoding="utf-8")
        watched = json.loads(await table_floor(path, "group", "status", "--format", "json"))
        assert [(row["casino_id"], row["running"]) for row in watched] == [(casino, True) for casino in CASINOS]
        some_shift = sorted(shifts)[0]
        asked = json.loads(await table_floor(path, "query", "money", "--group", "--by", "casino,table,shift",
                                             "--shift", some_shift, "--format", "json"))
        assert {(row["casino_id"], row["table_id"]) for row in asked} <= {
            (casino, table) for casino in CASINOS for table in ("T01", "T02")}
        assert sum(row["win_cents"] for row in asked) == sum(
            figures["win_cents"] for figures in (await money_of_casinos(databases, CASINOS, some_shift)).values())
    finally:
        await relay.cut()
        for tables in journals.values():
            for journal in tables.values():
                journal.close()


def group_toml(mapping: dict[str, Any]) -> str:
    lines = ["[group]", f'dsn = "{mapping["group"]["dsn"]}"']
    for casino in mapping["group"]["casinos"]:
        lines += ["[[group.casinos]]", *(f'{key} = "{value}"' for key, value in casino.items())]
    return "\n".join(lines) + "\n"


async def table_floor(config: Path, *args: str) -> str:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "casino_floor", *args, "--config",
                                                   str(config), stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()


async def test_a_floor_database_named_for_one_casino_refuses_another(databases: dict[str, str]) -> None:
    connection = await asyncpg.connect(databases["paris"])
    try:
        await group.setup_casino(connection, "paris", None)
        with pytest.raises(ConfigError, match="belongs to casino 'paris', not 'nice'"):
            await group.name_casino(connection, "nice")
    finally:
        await connection.close()


@pytest.mark.parametrize(("mapping", "key"), [
    ({"group": {"dsn": "postgresql://g@h/g", "casinos": []}}, "group.casinos"),
    ({"group": {"dsn": "postgresql://g@h/g", "casinos": [{"casino_id": "Paris!", "dsn": "postgresql://f@h/f",
                                                          "publisher": "host=h"}]}}, "group.casinos[0].casino_id"),
    ({"group": {"dsn": "postgresql://g:secret@h/g", "casinos": [
        {"casino_id": "paris", "dsn": "postgresql://f@h/f", "publisher": "host=h"}]}}, "group.dsn"),
    ({"group": {"dsn": "postgresql://g@h/g", "casinos": [
        {"casino_id": "paris", "dsn": "postgresql://f@h/f", "publisher": "host=h password=x"}]}},
     "group.casinos[0].publisher"),
])
def test_a_bad_group_configuration_names_its_key(mapping: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as raised:
        group_config_from_mapping(mapping, environ={})
    assert raised.value.key == key


async def test_the_commands_answer_in_one_line_when_the_group_cannot_be_reached(tmp_path: Path) -> None:
    path = tmp_path / "group.toml"
    path.write_text('[group]\ndsn = "postgresql://g@127.0.0.1:9/g"\n[[group.casinos]]\ncasino_id = "paris"\n'
                    'dsn = "postgresql://f@127.0.0.1:9/f"\npublisher = "host=127.0.0.1 port=9 dbname=f"\n',
                    encoding="utf-8")
    for args in (("group", "status"), ("query", "money", "--group", "--shift", "2026-12-01T06")):
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "casino_floor", *args, "--config",
                                                       str(path), stdout=asyncio.subprocess.PIPE,
                                                       stderr=asyncio.subprocess.PIPE)
        out, err = await process.communicate()
        assert process.returncode == 2, (out, err)
        lines = err.decode().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("table-floor: the database:"), lines
