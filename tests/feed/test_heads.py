"""When the publisher's head is due (table_runtime/feed/heads.py), on an injected clock, and its signature."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_runtime.config import ConfigInvalidError, load_config
from table_runtime.errors import ConfigError
from table_runtime.feed.heads import HeadSchedule, signed_by
from table_runtime.feed.messages import Topics, head_message
from table_runtime.feed.settings import FeedSettings
from table_runtime.runtime.assembly import feed_settings


def test_a_head_at_first_then_after_a_burst_past_it_and_every_interval() -> None:
    schedule = HeadSchedule(5.0)
    assert schedule.due(0, idle=False, now=0.0)  # at connection
    schedule.sent(120, 0.0)
    assert not schedule.due(120, idle=True, now=1.0)  # nothing new, not yet 5 s
    assert not schedule.due(130, idle=False, now=1.0)  # a burst still in flight
    assert schedule.due(130, idle=True, now=1.0)  # the burst is sent
    schedule.sent(130, 1.0)
    assert not schedule.due(130, idle=True, now=5.9)
    assert schedule.due(130, idle=True, now=6.0)  # refreshed while idle
    assert schedule.due(200, idle=False, now=6.0)  # and while busy


def test_a_table_with_a_head_key_signs_its_heads_and_one_without_sends_them_as_before() -> None:
    mapping = {"url": "mqtt://127.0.0.1:1883", "table_id": "T1", "head_key_env": "TABLE_HEAD_KEY"}
    settings = FeedSettings.from_mapping(mapping, environ={"TABLE_HEAD_KEY": "t1-head-key-16-bytes"})
    assert settings.head_key_bytes == b"t1-head-key-16-bytes" and "t1-head" not in repr(settings)
    head = head_message(Topics("casino", "T1"), journal="j" * 32, seq=7, hash_="a" * 64, ts=1.0,
                        key=settings.head_key_bytes)
    assert signed_by(head.payload, [b"t1-head-key-16-bytes"])
    plain = head_message(Topics("casino", "T1"), journal="j" * 32, seq=7, hash_="a" * 64, ts=1.0)
    assert "mac" not in plain.payload  # a consumer of the earlier format reads the same message
    for environ, named in (({}, "not set"), ({"TABLE_HEAD_KEY": "short"}, "16 bytes")):
        try:
            FeedSettings.from_mapping(mapping, environ=environ)
        except ConfigError as error:
            assert error.key == "feed.head_key_env" and named in str(error)
        else:
            raise AssertionError(f"{environ} accepted")


def test_the_tables_configuration_names_the_variable_holding_its_head_key(tmp_path: Path) -> None:
    demo = (Path(__file__).resolve().parents[2] / "configs" / "demo.toml").read_text(encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text(demo.replace("[mqtt]", '[mqtt]\nurl = "mqtt://127.0.0.1:1883"\nhead_key_env = "T1_HEAD"', 1),
                    encoding="utf-8")
    config = load_config(path, environ={"T1_HEAD": "the key of this table alone"})
    assert "alone" not in repr(config)
    assert feed_settings(config.mqtt, config.table_id).head_key_bytes == b"the key of this table alone"
    with pytest.raises(ConfigInvalidError) as caught:
        load_config(path, environ={})
    assert [problem.key for problem in caught.value.problems] == ["mqtt.head_key_env"]
