"""The pit page as ``table-floor run`` serves it: beside the service, on the service's own session (every message
read once per floor process), showing the tables and the floor's own alarms from the store."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt

from casino_floor.pit.server import PitServer
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from tests.floor.support import floor_config
from tests.polling import until

from .pit_support import pit_beside_service, publishing_tables, snapshot


async def _overview(session: aiohttp.ClientSession, server: PitServer) -> dict[str, Any]:
    base = server.url.split("?")[0].rstrip("/")
    async with session.get(f"{base}/api/overview") as response:
        assert response.status == 200
        result: dict[str, Any] = await response.json()
        return result


def _table(overview: dict[str, Any], table_id: str) -> dict[str, Any]:
    return next((table for table in overview["tables"] if table["table_id"] == table_id), {})


async def test_beside_the_service_the_page_uses_its_session_and_shows_the_floor_alarms(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    config = dataclasses.replace(floor_config(database, [floor_broker.url], prefix, check_interval=0.1),
                                 pit_bind="127.0.0.1:0", pit_token=None)
    async with pit_beside_service(config, store) as server:
        async with publishing_tables(floor_broker.url, prefix, ["T1"], tmp_path) as tables, \
                aiohttp.ClientSession() as session:  # fmt: skip
            offered = tables["T1"].offer(snapshot("betting", round_number=7, seq=10))
            view: dict[str, Any] = {}

            async def poll(condition: Any) -> bool:
                view.update(await _overview(session, server))
                return bool(condition(view))

            async def until_page(condition: Any, what: str) -> None:
                async with asyncio.timeout(10):
                    while not await poll(condition):
                        await asyncio.sleep(0.05)

            await until_page(lambda o: _table(o, "T1").get("phase") == offered["phase"], "T1 betting on the page")
            journal = tables["T1"].journal.journal_id
            # A forged row on the table's events topic: the floor's integrity check raises a floor alarm.
            forged = {"schema_version": 1, "table_id": "T1", "journal": journal, "seq": 5, "ts": 1.0,
                      "type": "CardDrawn", "kind": "input", "body": {"card": "AS"}, "prev_hash": "0" * 64,
                      "hash": "f" * 64}
            async with aiomqtt.Client("127.0.0.1", floor_broker.port) as forger:
                await forger.publish(f"{prefix}/tables/T1/events", json.dumps(forged), qos=1)
            await until_page(lambda o: any(a["source"] == "floor" and a["kind"] == "chain_broken"
                                           for a in _table(o, "T1").get("alarms", ())), "the floor alarm shown")
            alarm = next(a for a in _table(view, "T1")["alarms"] if a["source"] == "floor")
            assert alarm["first_seq"] == 5 and "row 5" in alarm["message"]
        # Every client the broker saw: the table, the service and the forger; no session of the page's own.
        await until(lambda: "New client connected" in floor_broker.log_tail(200), "the broker's log")
        clients = set(re.findall(r"New client connected from \S+ as (\S+)", floor_broker.log_tail(500)))
        others = {c for c in clients if c != "table-T1-feed" and not c.startswith(config.floor_id)}
        assert len(others) == 1, clients  # the forger only
