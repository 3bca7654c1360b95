"""The questions asked of the group's database (`table-floor query ... --group`), across the casinos of a group.

- `group_money`: a shift's money (casino_floor/money.py) per casino, or per casino and table: the same sums as each
  casino's own `query money`, from the rounds and buy-ins the casinos replicate;
- the rated sessions by player across every casino the player visited (a pseudonym is the same in every casino of a
  group that shares the pseudonym secret: docs/floor.md, "The group") are `rating_queries.ratings` run on the group's
  database, which holds every casino's sessions.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import asyncpg

from casino_floor.money import ShiftMoney
from casino_floor.shifts import Shifts

# As queries.COUNTED, within each casino: a row counts once its journal's signed prefix covers it, or when the
# casino holds no key for its table.
COUNTED: Final = ("LEFT JOIN journals j ON j.casino_id = r.casino_id AND j.table_id = r.table_id "
                  "AND j.journal = r.journal WHERE (j.signed_seq IS NULL OR r.seq <= j.signed_seq)")

MONEY_GROUPINGS: Final = ("casino,shift", "casino,table,shift")
MoneyGrouping = Literal["casino,shift", "casino,table,shift"]


async def group_money(connection: asyncpg.Connection, shifts: Shifts, shift: str,
                      by: MoneyGrouping = "casino,shift") -> list[dict[str, Any]]:
    """Per casino (and table) with a round or a buy-in in the shift: rounds, handle, buy-ins, drop, win, hold."""
    if by not in MONEY_GROUPINGS:
        raise ValueError(f"by must be one of {', '.join(MONEY_GROUPINGS)}")
    start, end = shifts.bounds(shift)
    per_table = by == "casino,table,shift"
    columns = "r.casino_id, r.table_id" if per_table else "r.casino_id"
    money: dict[tuple[str, ...], ShiftMoney] = {}
    for row in await connection.fetch(
            f"SELECT {columns}, count(*) AS rounds, sum(r.handle_cents) AS handle_cents, "
            f"sum(r.win_cents) AS win_cents FROM rounds r {COUNTED} AND r.ts >= $1 AND r.ts < $2 GROUP BY {columns}",
            start, end):
        key = (row["casino_id"], row["table_id"]) if per_table else (row["casino_id"],)
        money[key] = ShiftMoney(rounds=row["rounds"], handle_cents=int(row["handle_cents"]),
                                win_cents=int(row["win_cents"]))
    for row in await connection.fetch(
            f"SELECT {columns}, count(*) AS buy_ins, sum(r.cents) AS drop_cents FROM buy_ins r {COUNTED} "
            f"AND r.ts >= $1 AND r.ts < $2 GROUP BY {columns}", start, end):
        key = (row["casino_id"], row["table_id"]) if per_table else (row["casino_id"],)
        figures = money.setdefault(key, ShiftMoney())
        figures.buy_ins, figures.drop_cents = row["buy_ins"], int(row["drop_cents"])
    return [{"shift": shift, "casino_id": key[0], **({"table_id": key[1]} if per_table else {}),
             **money[key].to_dict(shift)} for key in sorted(money)]
