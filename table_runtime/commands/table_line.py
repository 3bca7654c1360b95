"""The demo's terminal view: one line per change of the table, from the snapshot the display also gets.

    round    3 playing    turn box2 | bank [9H] 9 | box1 25.00 € [KD 7S] 17 | box2 10.00 € +5.00 € behind
    [AS 5H] soft 16 | chips 40.00 € on the table | ALARMS past_posting box2, wrong_payout box1

Each box says its stake (seated, and behind), each hand its cards and total
(soft, doubled, busted, blackjack, surrendered), a settled box its net; who sits where when the dealer
seated anyone; then what the chip readers see on the table, and the kind and box of every active alarm.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_runtime.runtime.recall import euros


def table_line(snapshot: Mapping[str, Any]) -> str:
    """One line for a snapshot (docs/display.md's contract)."""
    turn = snapshot.get("turn")
    head = f"round {snapshot['round']:>4} {snapshot['phase']:<10}" + (f" turn box{turn['box']}" if turn else "")
    parts = [head.rstrip(), _bank(snapshot["bank"])]
    parts += [_box(box) for box in snapshot["boxes"]]
    seats = snapshot.get("seats")
    if seats:  # who sits where (the dealer's SEAT), when anyone is seated
        parts.append("seats " + ", ".join(f"box{number} {player}" for number, player in seats.items()))
    zones = snapshot.get("zones")
    if zones:
        parts.append(f"chips {euros(sum(zones.values()))} on the table")
    alarms = snapshot.get("alarms") or []
    if alarms:
        parts.append("ALARMS " + ", ".join(
            str(alarm["kind"]) + (f" box{alarm['box']}" if alarm.get("box") else "") for alarm in alarms))
    return " | ".join(parts)


def _bank(bank: Mapping[str, Any]) -> str:
    if not bank["cards"]:
        return "bank []"
    state = " blackjack" if bank["blackjack"] else " busted" if bank["busted"] else ""
    return f"bank [{' '.join(bank['cards'])}] {'soft ' if bank['soft'] else ''}{bank['total']}{state}"


def _box(box: Mapping[str, Any]) -> str:
    stake = euros(box["seated_cents"])
    behind = sum(bet["cents"] for bet in box["behind"])
    if behind:
        stake += f" +{euros(behind)} behind"
    if box["insurance_cents"]:
        stake += f" +{euros(box['insurance_cents'])} insurance"
    hands = " / ".join(_hand(hand) for hand in box["hands"])
    text = f"box{box['box']} {stake}" + (f" {hands}" if hands else "")
    if box.get("net_cents") is not None:
        net = box["net_cents"]
        text += f" net {'+' if net > 0 else '-' if net < 0 else ''}{euros(abs(net))}"
    return text


def _hand(hand: Mapping[str, Any]) -> str:
    cards = f"[{' '.join(hand['cards'])}]"
    if not hand["cards"]:
        return cards
    total = f"{'soft ' if hand['soft'] else ''}{hand['total']}"
    status = hand["status"] if hand["status"] in ("busted", "blackjack", "charlie", "doubled", "surrendered") else ""
    return f"{cards} {total}" + (f" {status}" if status else "")
