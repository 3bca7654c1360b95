"""The service's own keys: [metrics] (the Prometheus endpoint), [clock] (waiting for NTP), devices.gpio_chip,
mqtt.replay_secret_env (the floor's replay secret)."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_runtime.config import ConfigInvalidError, describe, load_config
from table_runtime.runtime.assembly import feed_settings

REPO = Path(__file__).resolve().parents[2]
DEMO = (REPO / "configs" / "demo.toml").read_text(encoding="utf-8")


def problems(tmp_path: Path, extra: str, text: str = DEMO) -> dict[str, str]:
    path = tmp_path / "table.toml"
    path.write_text(text.replace("[clock]\nsync_wait_seconds = 0", "") + extra, encoding="utf-8")
    with pytest.raises(ConfigInvalidError) as caught:
        load_config(path, environ={})
    return {problem.key: problem.message for problem in caught.value.problems}


def test_defaults_no_metrics_and_a_two_minute_clock_wait(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(DEMO.replace("[clock]\nsync_wait_seconds = 0", ""), encoding="utf-8")
    config = load_config(path, environ={})
    assert not config.metrics.enabled and config.clock.sync_wait_seconds == 120
    assert load_config(REPO / "configs" / "demo.toml", environ={}).clock.sync_wait_seconds == 0
    pi = (REPO / "configs" / "pi.toml").read_text(encoding="utf-8")
    assert "[metrics]" in pi and "port = 9108" in pi and 'gpio_chip = "pinctrl-rp1"' in pi


def test_metrics_section(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(DEMO + '\n[metrics]\nhost = "0.0.0.0"\nport = 9108\n', encoding="utf-8")
    config = load_config(path, environ={})
    assert (config.metrics.host, config.metrics.port, config.metrics.enabled) == ("0.0.0.0", 9108, True)
    assert "metrics 0.0.0.0:9108" in describe(config)
    assert problems(tmp_path, "\n[metrics]\nhost = \"127.0.0.1\"\n") == {"metrics.port": "missing"}
    assert problems(tmp_path, "\n[metrics]\nport = 70000\n") == {"metrics.port": "70000: a TCP port is 0 to 65535"}
    assert problems(tmp_path, "\n[metrics]\nport = 8080\n") == {"metrics.port": "8080 is also display.port"}
    assert set(problems(tmp_path, "\n[metrics]\nport = 9108\npath = \"/m\"\n")) == {"metrics.path"}


def test_clock_section(tmp_path: Path) -> None:
    assert problems(tmp_path, "\n[clock]\nsync_wait_seconds = -1\n") == {
        "clock.sync_wait_seconds": "-1.0: 0 (do not wait) to 3600 seconds"}
    assert set(problems(tmp_path, "\n[clock]\nsync_wait_seconds = \"soon\"\n")) == {"clock.sync_wait_seconds"}
    assert set(problems(tmp_path, "\n[clock]\nntp = true\n")) == {"clock.ntp"}


def test_gpio_chip_by_number_or_label(tmp_path: Path) -> None:
    for setting, expected in (("0", 0), ('"pinctrl-rp1"', "pinctrl-rp1")):
        path = tmp_path / "table.toml"
        path.write_text(DEMO.replace('panel_pin_factory = "mock"',
                                     f'panel_pin_factory = "lgpio"\ngpio_chip = {setting}'), encoding="utf-8")
        assert load_config(path, environ={}).devices.gpio_chip == expected


def test_the_replay_secret_comes_from_the_variable_mqtt_replay_secret_env_names(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    text = DEMO.replace("[mqtt]", '[mqtt]\nurl = "mqtt://127.0.0.1:1883"\nreplay_secret_env = "PIT_REPLAY"', 1)
    path.write_text(text, encoding="utf-8")
    config = load_config(path, environ={"PIT_REPLAY": "a secret of the pit, long enough"})
    assert config.mqtt.replay_secret == "a secret of the pit, long enough"
    assert "long enough" not in repr(config)
    settings = feed_settings(config.mqtt, config.table_id)
    assert settings.replay_secret is not None and settings.replay_secret.reveal() == config.mqtt.replay_secret
    assert load_config(REPO / "configs" / "demo.toml", environ={}).mqtt.replay_secret is None  # no replay
    with pytest.raises(ConfigInvalidError) as caught:
        load_config(path, environ={"PIT_REPLAY": "short"})
    assert {problem.key: problem.message for problem in caught.value.problems} == {
        "mqtt.replay_secret_env": "PIT_REPLAY: the replay secret is not in the environment "
                                  "(or shorter than 16 bytes)"}


def _display(host: str, extra: str = "") -> str:
    return DEMO.replace('[display]\nhost = "127.0.0.1"', f'[display]\nhost = "{host}"{extra}')


def test_the_display_beyond_loopback_needs_the_pit_token(tmp_path: Path) -> None:
    assert problems(tmp_path, "", _display("0.0.0.0")) == {
        "display.host": "'0.0.0.0' serves the display to other machines: that needs the pit token "
                        "(TABLE_PIT_TOKEN or display.pit_token_file), else bind 127.0.0.1"}
    path = tmp_path / "table.toml"
    path.write_text(_display("0.0.0.0"), encoding="utf-8")
    assert load_config(path, environ={"TABLE_PIT_TOKEN": "a-pit-token-of-16+"}).display.host == "0.0.0.0"
    for loopback in ("127.0.0.1", "::1", "localhost"):
        path.write_text(_display(loopback), encoding="utf-8")
        assert load_config(path, environ={}).display.host == loopback


def test_display_allowed_hosts(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(_display("127.0.0.1", '\nallowed_hosts = ["Table-T01.pit.lan", "10.0.4.21"]'), encoding="utf-8")
    assert load_config(path, environ={}).display.allowed_hosts == ("table-t01.pit.lan", "10.0.4.21")
    assert load_config(REPO / "configs" / "demo.toml", environ={}).display.allowed_hosts == ()
    assert problems(tmp_path, "", _display("127.0.0.1", '\nallowed_hosts = ["evil.example:8080", 3]')) == {
        "display.allowed_hosts[0]": "'evil.example:8080': a host name or an IP address, no port",
        "display.allowed_hosts[1]": "3: a host name or an IP address, no port"}
    assert problems(tmp_path, "", _display("127.0.0.1", '\nallowed_hosts = "table.lan"')) == {
        "display.allowed_hosts": "expected an array of host names, not a string"}


def test_a_password_in_the_broker_url_is_refused_and_never_shown(tmp_path: Path) -> None:
    text = DEMO.replace('prefix = "casino"', 'url = "mqtt://table:s3cr3t-pw@127.0.0.1:1883"\nprefix = "casino"', 1)
    found = problems(tmp_path, "", text)
    assert found == {"mqtt.url": "mqtt://table:***@127.0.0.1:1883: no password in the URL; put it in the file "
                                 "mqtt.password_file or in TABLE_MQTT_PASSWORD"}
    bad_scheme = DEMO.replace('prefix = "casino"', 'url = "http://table:s3cr3t-pw@host"\nprefix = "casino"', 1)
    assert "s3cr3t-pw" not in str(problems(tmp_path, "", bad_scheme))
