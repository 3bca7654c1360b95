"""The pure parts of the feed: topics, messages, routing, settings, backoff, seq tracking, the AsyncAPI document."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_runtime.core.inputs import core_to_dict
from table_runtime.core.seating import PlayerSeated, SeatCleared
from table_runtime.errors import ConfigError
from table_runtime.feed.backoff import Backoff
from table_runtime.feed.consumer import SequenceTracker
from table_runtime.feed.messages import (
    ROUTES,
    TOPIC_NAMES,
    Topics,
    head_message,
    messages_for_entry,
    state_message,
    status_message,
    topic_filter,
)
from table_runtime.feed.settings import ENV_PASSWORD, ENV_USERNAME, FeedSettings, Secret, parse_broker_url
from table_runtime.game.cards import Card
from table_runtime.game.codec import to_dict
from table_runtime.game.events import BlackjackPaidEarly, HandSurrendered
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, ShoeShuffled, Surrender
from table_runtime.game.rules import profile
from table_runtime.game.table import Table
from table_runtime.journal import GENESIS_HASH, JournalEntry

from .support import DOCS, JOURNAL, asyncapi, entry_for, resolve, validators_by_topic


def entry(seq: int, kind: str, body: dict[str, object]) -> JournalEntry:
    return JournalEntry(seq, 1764412345.25, kind, body, GENESIS_HASH, f"{seq:064x}")


def test_topics_live_under_prefix_tables_table_id() -> None:
    topics = Topics("casino/paris", "T7")
    assert [topics.topic(name) for name in TOPIC_NAMES] == [
        f"casino/paris/tables/T7/{name}"
        for name in ("status", "state", "events", "alarms", "rounds", "head", "ratings", "checkpoints", "meters")
    ]
    assert topic_filter("casino", None, "events") == "casino/tables/+/events"
    for prefix, table in (("casino", "T/1"), ("casino", "T+"), ("ca#", "T1"), ("/casino", "T1"), ("", "T1")):
        with pytest.raises(ConfigError):
            Topics(prefix, table)


def test_each_kind_goes_to_events_and_to_its_route() -> None:
    topics = Topics("casino", "T1")
    expected = {"input": [], "event": [], "status": [], "alarm": ["alarms"], "alarm_cleared": ["alarms"],
                "alarm_updated": ["alarms"], "round": ["rounds"], "meters": ["meters"],
                "some_future_kind": []}  # fmt: skip
    for kind, extra in expected.items():
        messages = messages_for_entry(topics, entry(5, kind, {"x": 1}), JOURNAL)
        assert [message.topic.rsplit("/", 1)[1] for message in messages] == ["events", *extra]
        assert all(message.qos == 1 and not message.retain and message.seq == 5 for message in messages)
    assert set(ROUTES) == {"alarm", "alarm_cleared", "alarm_updated", "round", "meters"}


def test_every_message_carries_the_common_header() -> None:
    topics = Topics("casino", "T1")
    messages = [
        *messages_for_entry(topics, entry(3, "event", {"type": "CardAssigned", "card": "AS"}), JOURNAL),
        *messages_for_entry(topics, entry(4, "alarm", {"id": 1}), JOURNAL),
        status_message(topics, "offline", journal=JOURNAL, seq=9, ts=2.5, reason="connection lost"),
        state_message(topics, {"seq": 9, "phase": "betting"}, journal=JOURNAL, ts=2.5),
        head_message(topics, journal=JOURNAL, seq=9, hash_=f"{9:064x}", ts=2.5),
    ]
    for message in messages:
        payload = json.loads(message.encode())
        assert {"schema_version", "table_id", "seq", "ts", "type"} <= payload.keys()
        assert payload["table_id"] == "T1" and payload["schema_version"] == 1 and payload["journal"] == JOURNAL
    event = json.loads(messages[0].encode())
    assert (event["type"], event["kind"], event["body"]["card"]) == ("CardAssigned", "event", "AS")
    assert [json.loads(message.encode())["type"] for message in messages[1:]] == [
        "AlarmRaised", "AlarmRaised", "FeedStatus", "TableState", "JournalHead"
    ]  # fmt: skip
    assert all(message.retain for message in messages[-3:])
    assert json.loads(messages[-1].encode()) == {
        "schema_version": 1, "table_id": "T1", "journal": JOURNAL, "seq": 9, "hash": f"{9:064x}", "ts": 2.5,
        "type": "JournalHead"}  # fmt: skip


def test_a_row_built_without_a_journal_names_none_and_still_validates() -> None:
    # The publisher always names its journal (test_anchor.py); a tool building rows of no journal names none.
    (message,) = messages_for_entry(Topics("casino", "T1"), entry(3, "event", {"type": "CardAssigned"}))
    payload = json.loads(message.encode())
    assert "journal" not in payload
    validators_by_topic()["events"].validate(payload)


def test_the_made_up_journal_validates_against_the_published_schemas() -> None:
    validators = validators_by_topic()
    assert set(validators) == set(TOPIC_NAMES)
    topics = Topics("casino", "T1")
    for index in range(200):
        kind, body = entry_for(index)
        for message in messages_for_entry(topics, entry(index + 1, kind, body), JOURNAL):
            validators[message.topic.rsplit("/", 1)[1]].validate(json.loads(message.encode()))
    bad = json.loads(messages_for_entry(topics, entry(1, "alarm", {"id": 1}), JOURNAL)[1].encode())  # no rule
    assert not validators["alarms"].is_valid(bad)
    head = json.loads(head_message(topics, journal=JOURNAL, seq=200, hash_="a" * 64, ts=3.5).encode())
    validators["head"].validate(head)
    assert not validators["head"].is_valid({**head, "journal": "not-an-id"})


def test_a_blackjack_paid_early_is_published_with_its_amount() -> None:
    rules = profile("fr-classic")
    table = Table(rules)
    table.apply(ShoeShuffled(shoe_id="S1"))
    for code in ("9C", "9D", "9H", "9S", "8C")[: rules.burn_cards]:
        table.apply(CardDrawn(card=Card.parse(code)))
    bets = (BoxBet(box=1, seated_cents=1000, owner="p1"), BoxBet(box=2, seated_cents=1000, owner="p2"))
    table.apply(BetsLocked(bets=bets))
    cards = [CardDrawn(card=Card.parse(code)) for code in ("AS", "TS", "TH", "KD", "9D")]  # box 1: AS KD
    events = [event for card in cards for event in table.apply(card)]
    (early,) = [to_dict(event) for event in events if isinstance(event, BlackjackPaidEarly)]
    assert (early["staked_cents"], early["cents"]) == (1000, 1500)
    validator = validators_by_topic()["events"]
    (message,) = messages_for_entry(Topics("casino", "T1"), entry(7, "event", early), JOURNAL)
    validator.validate(json.loads(message.encode()))
    without_amount = {key: value for key, value in early.items() if key != "cents"}
    (old,) = messages_for_entry(Topics("casino", "T1"), entry(8, "event", without_amount), JOURNAL)
    assert not validator.is_valid(json.loads(old.encode()))


def test_a_surrender_and_who_sits_where_are_published_with_their_amounts_and_fields() -> None:
    """HandSurrendered (55-4 1° as amended on 6 May 2020) carries what was staked and what went back; the seat
    inputs name the box and the player; a body without them is refused by the schema."""
    rules = profile("fr-2020")
    table = Table(rules)
    table.apply(ShoeShuffled(shoe_id="S1"))
    for code in ("9C", "9D", "9H", "9S", "8C")[: rules.burn_cards]:
        table.apply(CardDrawn(card=Card.parse(code)))
    table.apply(BetsLocked(bets=(BoxBet(box=1, seated_cents=1001, owner="p1"),)))
    for code in ("TS", "9D", "6H"):
        table.apply(CardDrawn(card=Card.parse(code)))
    (surrendered,) = [to_dict(event) for event in table.apply(Surrender()) if isinstance(event, HandSurrendered)]
    assert (surrendered["staked_cents"], surrendered["returned_cents"]) == (1001, 500)
    validator = validators_by_topic()["events"]
    topics = Topics("casino", "T1")
    (message,) = messages_for_entry(topics, entry(7, "event", surrendered), JOURNAL)
    validator.validate(json.loads(message.encode()))
    without_amount = {key: value for key, value in surrendered.items() if key != "returned_cents"}
    (old,) = messages_for_entry(topics, entry(8, "event", without_amount), JOURNAL)
    assert not validator.is_valid(json.loads(old.encode()))
    for seat in (PlayerSeated(box=3, player="A"), SeatCleared(box=3)):
        (message,) = messages_for_entry(topics, entry(9, "input", core_to_dict(seat)), JOURNAL)
        validator.validate(json.loads(message.encode()))
    nameless = {**core_to_dict(PlayerSeated(box=3, player="A")), "player": ""}
    (bad,) = messages_for_entry(topics, entry(10, "input", nameless), JOURNAL)
    assert not validator.is_valid(json.loads(bad.encode()))


def test_asyncapi_document_is_3_0_and_names_a_schema_file_for_every_topic() -> None:
    document = asyncapi()
    assert document["asyncapi"] == "3.0.0"
    addresses = {channel["address"] for channel in document["channels"].values()}
    assert addresses == {f"{{prefix}}/tables/{{tableId}}/{name}" for name in TOPIC_NAMES} | {
        "{prefix}/tables/{tableId}/replay/request", "{prefix}/floor/{floorId}/replay",
        "{prefix}/tables/{tableId}/verify/request", "{prefix}/floor/{floorId}/verify"}
    for operation in document["operations"].values():
        channel = resolve(document, operation["channel"]["$ref"])
        # The table receives the floor's replay and verify requests and sends everything else.
        assert operation["action"] == ("receive" if channel["address"].endswith("/request") else "send")
        for message in operation["messages"]:
            assert message["$ref"].startswith(operation["channel"]["$ref"] + "/messages/")
            resolve(document, message["$ref"])
        retained = channel["address"].endswith(("/status", "/state", "/head"))
        assert operation["bindings"]["mqtt"] == {"qos": 1, "retain": retained}
    referenced = {Path(message["payload"]["$ref"]).name for message in document["components"]["messages"].values()}
    assert referenced == {path.name for path in (DOCS / "schemas").glob("*.json")}
    # Every internal reference resolves.
    text = (DOCS / "asyncapi.yaml").read_text(encoding="utf-8")
    for reference in re.findall(r"\$ref: '(#/[^']+)'", text):
        resolve(document, reference)


def test_broker_urls() -> None:
    assert parse_broker_url("mqtt://127.0.0.1")[0].url == "mqtt://127.0.0.1:1883"
    address, user = parse_broker_url("mqtts://table-t1@broker.pit:9883")
    assert (address.host, address.port, address.tls, user) == ("broker.pit", 9883, True, "table-t1")
    for bad in ("http://x", "mqtt://", "mqtt://u:pw@host", "mqtt://host:99999", "mqtt://host/path", ""):
        with pytest.raises(ConfigError) as error:
            parse_broker_url(bad)
        assert error.value.key == "feed.url"
    with pytest.raises(ConfigError) as error:
        parse_broker_url("mqtt://u:hunter2@host")
    assert "hunter2" not in str(error.value)


def test_settings_take_secrets_from_the_environment_or_a_file_and_hide_them(tmp_path: Path) -> None:
    from_env = FeedSettings.from_mapping(
        {"url": "mqtt://h", "table_id": "T1"}, environ={ENV_USERNAME: "t1", ENV_PASSWORD: "hunter2"}
    )
    assert (from_env.username, from_env.password) == ("t1", Secret("hunter2"))
    assert "hunter2" not in repr(from_env) and "hunter2" not in str(from_env.password)
    password_file = tmp_path / "pw"
    password_file.write_text("from-file\n", encoding="utf-8")
    from_file = FeedSettings.from_mapping(
        {"url": "mqtt://t1@h", "table_id": "T1", "password_file": str(password_file)}, environ={}
    )
    assert from_file.username == "t1" and from_file.password is not None
    assert from_file.password.reveal() == "from-file"
    assert from_file.identifier == "table-T1-feed" and from_file.tls_context() is None

    for mapping, key in (
        ({"url": "mqtt://h", "table_id": "T1", "colour": "red"}, "feed.colour"),
        ({"url": "mqtt://h", "table_id": "T1", "password_file": str(tmp_path / "missing")}, "feed.password_file"),
        ({"url": "mqtt://h", "table_id": "T1", "password_file": str(password_file)}, "feed.username"),
        ({"url": "mqtt://h", "table_id": "T1", "batch_size": 0}, "feed.batch_size"),
        ({"url": "mqtt://h", "table_id": "T1", "keepalive": "10"}, "feed.keepalive"),
        ({"url": "mqtt://h", "table_id": "T1", "ca_file": str(password_file)}, "feed.url"),
        ({"url": "mqtt://h"}, "feed.table_id"),
    ):
        with pytest.raises(ConfigError) as error:
            FeedSettings.from_mapping(mapping, environ={})
        assert error.value.key == key


def test_backoff_is_capped_jittered_and_resets() -> None:
    backoff = Backoff(0.5, 8.0, random.Random(1))
    delays = [backoff.next_delay() for _ in range(10)]
    for attempt, delay in enumerate(delays):
        ceiling = min(8.0, 0.5 * 2**attempt)
        assert ceiling / 2 <= delay <= ceiling
    assert len(set(delays[5:])) == 5
    backoff.reset()
    assert backoff.next_delay() <= 0.5


@given(st.lists(st.integers(min_value=1, max_value=60), max_size=200))
def test_tracker_accepts_each_seq_once_in_increasing_order_and_reports_every_gap(seqs: list[int]) -> None:
    tracker = SequenceTracker()
    accepted: list[int] = []
    missing: set[int] = set()
    for seq in seqs:
        observation = tracker.observe("T1", seq)
        if observation.verdict != "duplicate":
            accepted.append(seq)
        if observation.missing is not None:
            missing.update(range(observation.missing[0], observation.missing[1] + 1))
    assert accepted == sorted(set(accepted))
    if accepted:
        assert missing == set(range(accepted[0], accepted[-1] + 1)) - set(accepted)
    assert tracker.duplicates == len(seqs) - len(accepted)


def test_tracker_keeps_tables_apart_and_can_start_after_a_known_seq() -> None:
    tracker = SequenceTracker()
    tracker.start_after("T1", 10)
    assert tracker.observe("T1", 10).verdict == "duplicate"
    assert tracker.observe("T1", 13).missing == (11, 12)
    assert tracker.observe("T2", 500).verdict == "new"
    assert tracker.observe("T2", 501).verdict == "new"
