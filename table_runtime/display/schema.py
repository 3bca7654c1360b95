"""The display contract as JSON Schema: the table snapshot and a recalled round.

docs/display.md describes the same shapes in prose; keep the two in sync. The
schemas are plain data (no validator is imported here); tests validate with
`jsonschema`, e.g. ``jsonschema.validate(snapshot, SNAPSHOT_SCHEMA)``, and so
can the runtime's own tests of its snapshot builder.
"""

from __future__ import annotations

from typing import Any

from table_runtime.game.commands import ROUND_COMMANDS

PHASES = ("betting", "dealing", "insurance", "playing", "bank", "settlement", "closed", "voided")
HAND_STATUSES = ("waiting", "playing", "stood", "busted", "blackjack", "twenty_one", "doubled", "charlie", "done",
                 "surrendered")
OUTCOMES = ("blackjack", "win", "charlie", "push", "lose", "bust", "insurance_win", "insurance_lose", "void",
            "hyper_win", "hyper_lose", "surrender")
HYPER_CASES = ("17", "18", "19", "20", "21", "blackjack", "bust")  # game/hyper.py HyperCase (55-4 6°)
STAKE_KINDS = ("original", "double", "split", "insurance", *(f"hyper.{case}" for case in HYPER_CASES))
ALLOWED_COMMANDS = tuple(ROUND_COMMANDS)  # what a round may allow (game/commands.py)
ROUND_RESULTS = ("settled", "voided", "in_progress")

_CENTS: dict[str, Any] = {"type": "integer"}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_BOX_NUMBER: dict[str, Any] = {"type": "integer", "minimum": 1, "maximum": 7}
_CARD: dict[str, Any] = {"type": "string", "pattern": "^[A2-9TJQK][SHDC]$"}
_CARDS: dict[str, Any] = {"type": "array", "items": _CARD}


def _object(properties: dict[str, Any], *, optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object with at least these keys, and the `optional` ones checked when present. More are
    allowed (the runtime adds e.g. a payout's rounding note, a hand's stakes by owner); the page
    ignores what it does not know."""
    return {"type": "object", "properties": {**properties, **(optional or {})}, "required": list(properties)}


_PAYOUT_FIELDS: dict[str, Any] = {
    "hand": _COUNT,
    "owner": {"type": "string"},
    "kind": {"enum": list(STAKE_KINDS)},
    "staked_cents": _CENTS,
    "outcome": {"enum": list(OUTCOMES)},
    "net_cents": _CENTS,
}

ALARM_SCHEMA: dict[str, Any] = _object(
    {
        "id": _COUNT,
        "seq": _COUNT,
        "kind": {"type": "string", "minLength": 1},
        "box": {"oneOf": [_BOX_NUMBER, {"type": "null"}]},
        "message": {"type": "string"},
        "rule": {"type": "string"},
        "amounts": {"type": "object", "additionalProperties": _CENTS},
        "acknowledged": {"type": "boolean"},
    },
    # The live snapshot always says whether only the supervisor may acknowledge the alarm (docs/display.md);
    # a recalled round's alarms, read back from the journal, may leave it out.
    optional={"supervisor": {"type": "boolean"},
              # how many alarms of its kind and box it stands for (an alarm journaled before it: none)
              "count": {"type": "integer", "minimum": 1}},
)

_HAND = _object(
    {
        "cards": _CARDS,
        "total": _COUNT,
        "soft": {"type": "boolean"},
        "stakes_cents": _CENTS,
        "doubled": {"type": "boolean"},
        "from_split": {"type": "boolean"},
        "status": {"enum": list(HAND_STATUSES)},
    }
)

_BOX = _object(
    {
        "box": _BOX_NUMBER,
        "owner": {"type": ["string", "null"]},
        "seated_cents": _CENTS,
        "behind": {"type": "array", "items": _object({"owner": {"type": "string"}, "cents": _CENTS})},
        "insurance_cents": _CENTS,
        "insurance_offered": {"type": "boolean"},
        "hands": {"type": "array", "items": _HAND},
        "payouts": {"type": "array", "items": _object(_PAYOUT_FIELDS)},
        "net_cents": {"type": ["integer", "null"]},
    }
)

# While the chip readers check the settlement: per zone (`box3`, `box3.behind`, `box3.insurance`) what it
# must end at and what is on it now. Absent outside settlement.
_PAYOUT_CHECK: dict[str, Any] = {
    "type": "object",
    "propertyNames": {"pattern": r"^(box[1-7](\.behind|\.insurance)?|hyper\.(1[7-9]|2[01]|blackjack|bust))$"},
    "additionalProperties": _object({"due_cents": _COUNT, "seen_cents": _COUNT}),
}

# The hyper black jack field (55-4 6°), where the rules open it: each case with its stakes locked by box and,
# once settled, their payouts; the bank's final result; the settlement's four steps in the text's order.
_HYPER: dict[str, Any] = _object({
    "cases": {"type": "array", "minItems": 7, "maxItems": 7, "items": _object({
        "case": {"enum": list(HYPER_CASES)},
        "label": {"type": "string"},
        "odds": {"type": "integer", "minimum": 1},
        "zone": {"type": "string", "pattern": r"^hyper\."},
        "stakes": {"type": "array",
                   "items": _object({"box": _BOX_NUMBER, "owner": {"type": "string"}, "cents": _CENTS})},
        "payouts": {"type": "array", "items": _object({"box": _BOX_NUMBER, "staked_cents": _CENTS,
                                                       "outcome": {"enum": ["hyper_win", "hyper_lose"]},
                                                       "net_cents": _CENTS})},
    })},
    "result": {"oneOf": [{"enum": list(HYPER_CASES)}, {"type": "null"}]},
    "settlement": {"type": "array", "items": _object({
        "step": {"enum": ["collect_hyper", "collect_main", "pay_main", "pay_hyper"]},
        "zones": {"type": "object", "additionalProperties": _COUNT},
        "cents": _COUNT,
    })},
})
# Before the deal, the dealer's assignments of the field's chips to boxes (core/hyper_field.py).
_HYPER_ASSIGNED: dict[str, Any] = {"type": "array", "items": _object(
    {"case": {"enum": list(HYPER_CASES)}, "box": _BOX_NUMBER, "owner": {"type": "string"}, "cents": _CENTS})}

SNAPSHOT_SCHEMA: dict[str, Any] = _object(
    {
        "schema_version": {"const": 1},
        "table_id": {"type": "string"},
        "seq": _COUNT,
        "round": _COUNT,
        "phase": {"enum": list(PHASES)},
        "profile": {"type": "string"},
        "limits": _object({"min_cents": _CENTS, "max_cents": _CENTS}),
        "turn": {"oneOf": [_object({"box": _BOX_NUMBER, "hand": _COUNT}), {"type": "null"}]},
        "allowed": {"type": "array", "items": {"enum": list(ALLOWED_COMMANDS)}, "uniqueItems": True},
        "next_card": {"type": "string", "pattern": r"^(box[1-7]\.hand[0-9]+|bank|burn|none)$"},
        "bank": _object(
            {
                "cards": _CARDS,
                "total": _COUNT,
                "soft": {"type": "boolean"},
                "blackjack": {"type": "boolean"},
                "busted": {"type": "boolean"},
                "must_draw": {"type": "boolean"},
            }
        ),
        "boxes": {"type": "array", "items": _BOX, "maxItems": 7},
        "held_cards": _CARDS,
        "shoe": _object(
            {
                "shoe_id": {"type": ["string", "null"]},
                "cards_dealt": _COUNT,
                "cards_left": _COUNT,
                "burns_left": _COUNT,
                "cut_card_reached": {"type": "boolean"},
                "online": {"type": "boolean"},
            }
        ),
        "alarms": {"type": "array", "items": ALARM_SCHEMA},
        "recovered": {"type": "boolean"},
        "devices": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    optional={"payout_check": _PAYOUT_CHECK, "alarms_hidden": _COUNT, "held_cards_hidden": _COUNT,
              "hyper": _HYPER, "hyper_assigned": _HYPER_ASSIGNED,
              # who sits where (core/seating.py): box number -> the player's label the dealer gave
              "seats": {"type": "object", "propertyNames": {"pattern": "^[1-7]$"},
                        "additionalProperties": {"type": "string", "minLength": 1}},
              # a player card read at the table, waiting for the dealer's box (core/player_cards.py)
              "card_waiting": _object({"player": {"type": "string", "minLength": 1}, "reader": {"type": "string"}}),
              # the paused seated players and the players behind (core/seat_changes.py), when there are any
              "seats_paused": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 7}},
              "behind_players": {"type": "object", "propertyNames": {"pattern": "^[1-7]$"},
                                 "additionalProperties": {"type": "string", "minLength": 1}},
              # the dealer on shift (core/shift.py), where a staff registry rules the table or someone logged in;
              # the display's adds his name (runtime/staff_desk.py), the feed's keeps his id only
              "shift": _object({"dealer": {"type": ["string", "null"]}, "required": {"type": "boolean"}},
                               optional={"name": {"type": ["string", "null"]}})},
)

RECALLED_ROUND_SCHEMA: dict[str, Any] = _object(
    {
        "round": _COUNT,
        "table_id": {"type": "string"},
        "shoe_id": {"type": ["string", "null"]},
        "started_seq": _COUNT,
        "closed_seq": {"type": ["integer", "null"]},
        "result": {"enum": list(ROUND_RESULTS)},
        "steps": {
            "type": "array",
            "items": _object(
                {
                    "seq": _COUNT,
                    "ts": {"type": "number"},
                    "type": {"type": "string"},
                    "text": {"type": "string"},
                    "snapshot": SNAPSHOT_SCHEMA,
                },
                # The events the step's input produced (codec.to_dict), which the page words in its language.
                optional={"events": {"type": "array", "items": _object({"type": {"type": "string"}})}},
            ),
        },
        "payouts": {"type": "array", "items": _object({"box": _BOX_NUMBER, **_PAYOUT_FIELDS})},
        "alarms": {"type": "array", "items": ALARM_SCHEMA},
    },
    # a voided round: who voided it and why (the RoundVoided event's)
    optional={"void": _object({"by": {"type": "string"}, "reason": {"type": "string"}})},
)
