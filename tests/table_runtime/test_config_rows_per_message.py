"""The table's `[mqtt] rows_per_message`: version 1 events by default, JournalRows when set, a bad value named."""

from __future__ import annotations

from pathlib import Path

from table_runtime.config import load_config
from table_runtime.runtime.assembly import feed_settings
from tests.table_runtime.test_config import MINIMAL, problems, write

MQTT = MINIMAL + '[mqtt]\nurl = "mqtt://10.0.0.1:1883"\n'


def test_the_feed_sends_a_row_a_message_unless_the_table_says_more(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MQTT), environ={})
    assert feed_settings(config.mqtt, config.table_id).rows_per_message == 1
    config = load_config(write(tmp_path, MQTT + "rows_per_message = 50\n"), environ={})
    assert feed_settings(config.mqtt, config.table_id).rows_per_message == 50


def test_a_bad_rows_per_message_is_named_with_its_key(tmp_path: Path) -> None:
    for value in ("0", "5000", '"50"', "2.5"):
        found = problems(tmp_path, MQTT + f"rows_per_message = {value}\n")
        assert set(found) == {"mqtt.rows_per_message"}, (value, found)
