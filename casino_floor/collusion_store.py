"""The box-rounds the collusion test reads (casino_floor/collusion.py), from what the floor's store holds
(`table-floor query collusion`).

Per round closed in the range (`rounds`: its record's boxes and payouts), each box of its record is one box-round:
- the dealer: the stint (`dealer_work`, migration 0007) of that table's journal whose login and logout bracket the
  round's row; a round dealt by nobody logged in, or in a stint not yet ended (stored when its dealer leaves or is
  pushed), is left out;
- the player: the rated session (`rated_rounds` of `rated_sessions`) that names the round (`T01-412`) at that box,
  open at the round's time (of a seated player and one behind the box, the larger stake's: an alarm names the
  box, not the zone); "" for a box no rated player held (anonymous, or not rated): counted in the dealer's rate,
  never a pair;
- the errors that favoured it: the round's alarms (`alarms`, with who cleared them: `alarm_clears`) as
  `favouring_error` judges them, a zone's excess on that box, a bank drawn against the rules for a box that won.
"""

from __future__ import annotations

import bisect
import json
from collections import defaultdict
from typing import Any, Final

import asyncpg

from casino_floor.collusion import BANK_DRAW, OVER_DUE, FavouringError, SharedRound, favouring_error, findings

_KINDS: Final = sorted(OVER_DUE | BANK_DRAW)
_SLACK: Final = 1.0  # seconds: a session's start and a round's row are journaled by the same table's clock


async def shared_rounds(connection: asyncpg.Connection, start: float, end: float) -> list[SharedRound]:
    """Every box-round of the rounds closed in [start, end) that a stored stint names a dealer for."""
    rounds = await connection.fetch(
        "SELECT table_id, journal, round, ts, record FROM rounds WHERE ts >= $1 AND ts < $2 ORDER BY ts",
        start, end)
    stints: dict[tuple[str, str], list[tuple[float, float, str]]] = defaultdict(list)
    for stint in await connection.fetch(
            "SELECT table_id, journal, employee, since, until FROM dealer_work WHERE since < $2 "
            "AND (until IS NULL OR until >= $1) ORDER BY since", start, end):
        stints[(stint["table_id"], stint["journal"])].append(
            (stint["since"], float("inf") if stint["until"] is None else stint["until"], stint["employee"]))
    seated: dict[tuple[str, str], list[tuple[int, str, float, float, int]]] = defaultdict(list)
    for line in await connection.fetch(
            "SELECT s.table_id, r.round_id, s.box, s.player, r.stake_cents, "
            "extract(epoch FROM s.started_at)::float8 AS started, extract(epoch FROM s.ended_at)::float8 AS ended "
            "FROM rated_rounds r JOIN rated_sessions s USING (table_id, session, started_at) "
            "WHERE s.started_at < to_timestamp($2) AND (s.ended_at IS NULL OR s.ended_at >= to_timestamp($1))",
            start - _SLACK, end + _SLACK):
        seated[(line["table_id"], line["round_id"])].append(
            (line["box"], line["player"] or "", line["started"], float("inf") if line["ended"] is None
             else line["ended"], line["stake_cents"]))
    alarms: dict[tuple[str, str, int], list[asyncpg.Record]] = defaultdict(list)
    for alarm in await connection.fetch(
            "SELECT a.table_id, a.journal, a.round, a.alarm_id, a.kind, a.box, a.amounts, c.cleared_by "
            "FROM alarms a LEFT JOIN alarm_clears c USING (table_id, journal, alarm_id) "
            "WHERE a.round > 0 AND a.kind = ANY($3::text[]) AND a.ts >= $1 AND a.ts < $2",
            start - 3600.0, end, _KINDS):  # a round's alarms are journaled before its record
        alarms[(alarm["table_id"], alarm["journal"], alarm["round"])].append(alarm)
    out: list[SharedRound] = []
    for row in rounds:
        dealer = _dealer_at(stints.get((row["table_id"], row["journal"]), []), row["ts"])
        if dealer is None:
            continue
        record = json.loads(row["record"]) if isinstance(row["record"], str) else row["record"]
        round_id = f"{row['table_id']}-{row['round']}"
        players: dict[int, tuple[int, str]] = {}  # box -> (stake, player): the larger stake's, seated or behind
        for box_number, player, started, ended, stake in seated.get((row["table_id"], round_id), []):
            if started - _SLACK <= row["ts"] <= ended + _SLACK and (stake, player) > players.get(box_number, (-1, "")):
                players[box_number] = (stake, player)
        nets: dict[int, int] = defaultdict(int)
        for payout in record.get("payouts") or []:
            if isinstance(payout.get("box"), int) and isinstance(payout.get("net_cents"), int):
                nets[payout["box"]] += payout["net_cents"]
        found = alarms.get((row["table_id"], row["journal"], row["round"]), [])
        for box in record.get("boxes") or []:
            number = box.get("box")
            if not isinstance(number, int):
                continue
            errors = tuple(error for alarm in found if alarm["box"] in (None, number)
                           if (error := _error(alarm, nets[number])) is not None)
            out.append(SharedRound(table_id=row["table_id"], round_id=round_id, ts=row["ts"], dealer=dealer,
                                   player=players.get(number, (0, ""))[1], box=number, errors=errors))
    return out


def _dealer_at(stints: list[tuple[float, float, str]], ts: float) -> str | None:
    """The employee of the stint (sorted by login) open at `ts`, or None."""
    index = bisect.bisect_right(stints, (ts, float("inf"), "\uffff")) - 1
    if index >= 0 and stints[index][0] <= ts <= stints[index][1]:
        return stints[index][2]
    return None


def _error(alarm: asyncpg.Record, box_net_cents: int) -> FavouringError | None:
    amounts = json.loads(alarm["amounts"]) if isinstance(alarm["amounts"], str) else alarm["amounts"]
    if alarm["kind"] in OVER_DUE and alarm["box"] is None:
        return None  # an excess of no box (the bank's) favours no one player
    return favouring_error(int(alarm["alarm_id"]), alarm["kind"], amounts if isinstance(amounts, dict) else {},
                           box_won_cents=box_net_cents, cleared_by=alarm["cleared_by"] or "")


async def collusion(connection: asyncpg.Connection, start: float, end: float, *, alpha: float,
                    every_pair: bool = False) -> list[dict[str, Any]]:
    """`table-floor query collusion`: the flagged pairs of the rounds in [start, end) with their evidence (every
    pair tested with `every_pair`)."""
    found = findings(await shared_rounds(connection, start, end), alpha=alpha)
    return [finding.view() for finding in found if every_pair or finding.flagged]
