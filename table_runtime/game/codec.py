"""Inputs and events to and from JSON-ready dicts, for the journal, the feed and recall.

Every dict carries `type` (the class name) and `schema_version`. Cards are
their two-letter codes; alarm amounts are an object of name -> cents.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from table_runtime.errors import TableError
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm, Event
from table_runtime.game.inputs import (
    INPUT_TYPES,
    SCHEMA_VERSION,
    BehindBet,
    BetsLocked,
    BoxBet,
    CardDrawn,
    HyperBet,
    Input,
)


class CodecError(TableError, ValueError):
    """A journal row that does not decode to an input."""


def _plain(value: Any, name: str = "") -> Any:
    if isinstance(value, Card):
        return value.code
    if name == "amounts":
        return dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: _plain(getattr(value, field.name), field.name) for field in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    return value


def to_dict(item: Input | Event) -> dict[str, Any]:
    """A JSON-ready dict of an input or an event."""
    body: dict[str, Any] = _plain(item)
    if isinstance(item, Alarm) and not item.reason:
        del body["reason"]  # only a refused command's alarm has one: every other alarm reads as before it
    if isinstance(item, BetsLocked) and not item.hyper:
        del body["hyper"]  # bets with none on the hyper field read as before it
    body["type"] = type(item).__name__
    body["schema_version"] = SCHEMA_VERSION
    return body


def input_from_dict(body: dict[str, Any]) -> Input:
    """The input a journal row holds; a `CodecError` naming what is wrong otherwise."""
    # `source` and `origin` say where the input came from (the shoe's message: docs/journal.md), `employee` who made
    # it (core/shift.py), not what it is.
    data = {key: value for key, value in body.items()
            if key not in ("type", "schema_version", "source", "origin", "employee")}
    name = body.get("type")
    cls = INPUT_TYPES.get(str(name))
    if cls is None:
        raise CodecError(f"unknown input type {name!r}")
    try:
        if cls is BetsLocked:
            return BetsLocked(bets=tuple(
                BoxBet(box=bet["box"], seated_cents=bet["seated_cents"], owner=bet.get("owner", ""),
                       behind=tuple(BehindBet(owner=b["owner"], cents=b["cents"]) for b in bet.get("behind", ())))
                for bet in data["bets"]),
                hyper=tuple(HyperBet(case=str(bet["case"]), box=int(bet["box"]), cents=int(bet["cents"]),
                                     owner=str(bet.get("owner", ""))) for bet in data.get("hyper", ())))
        if cls is CardDrawn:
            return CardDrawn(card=Card.parse(data["card"]), manual=data.get("manual", False), by=data.get("by", ""))
        fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return cls(**fields)
    except (KeyError, TypeError, ValueError) as error:
        raise CodecError(f"bad {name} input: {error}") from error
