"""A broker's user name and password in the floor's configuration: the floor's variables first, then the
entry (a file for the password), checked by the tables' own feed helper; a bad one is one ConfigError."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from casino_floor.config import config_from_mapping
from table_runtime.errors import ConfigError
from tests.floor.support import floor_toml

DSN = "postgresql://floor@localhost:5432/floor"


def _brokers_toml(extra: str = "") -> dict[str, object]:
    return tomllib.loads(floor_toml(DSN, ["mqtt://broker.pit.local:1883"], "casino") + extra)


def test_the_floor_s_password_variable_wins_and_the_user_may_come_from_the_url() -> None:
    data = tomllib.loads(floor_toml(DSN, ["mqtt://floor@broker.pit.local:1883"], "casino"))
    (broker,) = config_from_mapping(data, environ={"FLOOR_MQTT_PASSWORD": "s3cret"}).brokers
    assert broker.username == "floor"
    assert broker.password is not None and broker.password.reveal() == "s3cret"
    assert "s3cret" not in repr(broker)


def test_a_password_file_of_the_entry_is_read(tmp_path: Path) -> None:
    secret = tmp_path / "mqtt.pw"
    secret.write_text("from-file\n", encoding="utf-8")
    data = _brokers_toml(f'username = "floor"\npassword_file = "{secret}"\n')
    (broker,) = config_from_mapping(data, environ={}).brokers
    assert (broker.username, broker.password.reveal() if broker.password else None) == ("floor", "from-file")


def test_a_password_without_a_user_names_the_broker_entry() -> None:
    with pytest.raises(ConfigError) as raised:
        config_from_mapping(_brokers_toml(), environ={"FLOOR_MQTT_PASSWORD": "s3cret"})
    assert raised.value.key == "brokers[0].username"


def test_a_missing_password_file_is_one_line_naming_its_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        config_from_mapping(_brokers_toml(f'username = "floor"\npassword_file = "{tmp_path / "none"}"\n'), environ={})
    assert raised.value.key == "brokers[0].password_file"
    assert "no such file" in str(raised.value)


def test_a_ca_file_that_holds_no_certificate_is_one_line_naming_its_key(tmp_path: Path) -> None:
    ca_file = tmp_path / "ca.pem"
    ca_file.write_text("not a certificate\n", encoding="utf-8")
    data = tomllib.loads(floor_toml(DSN, ["mqtts://broker.pit.local:8883"], "casino") + f'ca_file = "{ca_file}"\n')
    with pytest.raises(ConfigError) as raised:  # at load (check-config), not at each session of the service
        config_from_mapping(data, environ={})
    assert raised.value.key == "brokers[0].ca_file"
    assert "TLS" in str(raised.value)
