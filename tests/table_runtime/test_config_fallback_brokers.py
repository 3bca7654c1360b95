"""The table's `[mqtt] fallback_urls`: each checked with its key, and the feed's settings list every broker."""

from __future__ import annotations

from pathlib import Path

from table_runtime.config import load_config
from table_runtime.runtime.assembly import feed_settings
from tests.table_runtime.test_config import MINIMAL, problems, write


def test_the_feed_takes_the_preferred_broker_then_its_fallbacks(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL + '[mqtt]\nurl = "mqtt://10.0.0.1:1883"\n'
                                          'fallback_urls = ["mqtt://10.0.0.2", "mqtt://10.0.0.3:1884"]\n'
                                          'failback_interval = 5\n'), environ={})
    settings = feed_settings(config.mqtt, config.table_id)
    assert [(broker.host, broker.port) for broker in settings.brokers] == [
        ("10.0.0.1", 1883), ("10.0.0.2", 1883), ("10.0.0.3", 1884)]
    assert settings.failback_interval == 5.0


def test_every_bad_fallback_is_named_in_one_pass(tmp_path: Path) -> None:
    found = problems(tmp_path, MINIMAL + '[mqtt]\nurl = "mqtts://10.0.0.1"\nca_file = "/nonexistent/ca.pem"\n'
                                         'fallback_urls = ["http://10.0.0.2", 7, "mqtt://user@10.0.0.3", '
                                         '"mqtt://10.0.0.4"]\nfailback_interval = 0\n')
    assert {"mqtt.fallback_urls[0]", "mqtt.fallback_urls[1]", "mqtt.fallback_urls[2]", "mqtt.fallback_urls[3]",
            "mqtt.failback_interval"} <= set(found), found
    assert "mqtts://" in found["mqtt.fallback_urls[3]"]  # TLS files with a plain fallback
    assert problems(tmp_path, MINIMAL + '[mqtt]\nfallback_urls = ["mqtt://10.0.0.2"]\n') == {
        "mqtt.fallback_urls": "fallback brokers without mqtt.url (the preferred broker)"}
