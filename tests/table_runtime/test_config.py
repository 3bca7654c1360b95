"""Configuration: the sample files load, every problem is reported with its key, secrets from the environment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_runtime.cli import main
from table_runtime.config import (
    ENV_MQTT_PASSWORD,
    ENV_PIT_TOKEN,
    ENV_SUPERVISOR_PIN,
    ConfigInvalidError,
    TableConfig,
    load_config,
    zone_box,
    zone_names,
)
from table_runtime.errors import ConfigError

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
DEMO = (CONFIGS / "demo.toml").read_text(encoding="utf-8")

MINIMAL = """
table_id = "T9"
data_dir = "data"
[rules]
boxes = 2
[devices]
shoe = "sim://shoe"
[[devices.chip_readers]]
url = "sim://reader"
antennas = { 1 = "box1", 2 = "box2", 3 = "box2.behind" }
[pins]
deal = 5
next = 6
double = 13
split = 19
undo = 26
confirm = 21
box_lamps = [17, 27]
tower_green = 16
tower_amber = 20
tower_red = 4
buzzer = 18
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def problems(tmp_path: Path, text: str, environ: dict[str, str] | None = None) -> dict[str, str]:
    with pytest.raises(ConfigInvalidError) as caught:
        load_config(write(tmp_path, text), environ=environ or {})
    return {problem.key: problem.message for problem in caught.value.problems}


def test_demo_config_loads_with_every_zone_and_pin() -> None:
    config = load_config(CONFIGS / "demo.toml", environ={})
    assert config.table_id == "DEMO1"
    assert config.rules.profile == "fr-casino" and config.rules.boxes == 7
    assert (config.limits.min_bet_cents, config.limits.max_bet_cents) == (500, 500_000)
    assert config.devices.shoe == "sim://shoe?seed=7"
    assert config.devices.panel_pin_factory == "mock"
    assert config.zones == zone_names(7)
    assert [reader.name for reader in config.devices.chip_readers] == ["left", "right"]
    assert config.devices.chip_readers[1].antennas[7] == "box7"
    assert config.pins.buttons == {"DEAL": 5, "NEXT": 6, "DOUBLE": 13, "SPLIT": 19, "UNDO": 26, "CONFIRM": 21}
    assert config.pins.box_lamps == (17, 27, 22, 23, 24, 25, 12)
    assert not config.mqtt.enabled and config.mqtt.prefix == "casino" and config.mqtt.client_id == "table-DEMO1"
    assert (config.display.host, config.display.port, config.display.language) == ("127.0.0.1", 8080, "fr")
    assert config.journal_path == Path.home() / ".local/share/table-runtime-demo/journal.db"  # the user's own


def test_pi_config_loads_once_its_files_exist(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "casino-ca.pem").write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    (etc / "mqtt-password").write_text("s3cret-from-file\n", encoding="utf-8")
    (etc / "supervisor-pin").write_text("4821\n", encoding="utf-8")
    (etc / "pit-token").write_text("0123456789abcdef0123\n", encoding="utf-8")
    text = (CONFIGS / "pi.toml").read_text(encoding="utf-8").replace("/etc/table-runtime", str(etc))
    config = load_config(write(tmp_path, text), environ={})
    assert config.devices.shoe == "serial:///dev/table-shoe?baudrate=115200"
    left, right = config.devices.chip_readers
    assert left.url == "usb://1209:7ab1?serial=RDR-0001" and right.serial_number == "RDR-0002"
    assert (left.vendor_id, left.product_id) == (0x1209, 0x7AB1)
    assert config.mqtt.url == "mqtts://broker.casino.lan:8883"
    assert config.mqtt.password == "s3cret-from-file"
    assert config.display.supervisor_pin == "4821"
    assert config.display.pit_token == "0123456789abcdef0123"
    assert "s3cret" not in repr(config) and "4821" not in repr(config)


def test_environment_overrides_secret_files(tmp_path: Path) -> None:
    text = MINIMAL + """
[mqtt]
url = "mqtt://127.0.0.1:1883"
password_file = "missing-password"
[display]
supervisor_pin_file = "missing-pin"
"""
    environ = {ENV_MQTT_PASSWORD: "from-env", ENV_SUPERVISOR_PIN: "987654", ENV_PIT_TOKEN: "t" * 20}
    config = load_config(write(tmp_path, text), environ=environ)
    assert config.mqtt.password == "from-env"
    assert config.display.supervisor_pin == "987654"
    assert config.display.pit_token == "t" * 20
    found = problems(tmp_path, text)
    assert set(found) == {"mqtt.password_file", "display.supervisor_pin_file"}


def test_minimal_config_takes_defaults_and_resolves_paths_beside_the_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL), environ={})
    assert isinstance(config, TableConfig)
    assert config.data_dir == tmp_path / "data"
    assert config.zones == ("box1", "box2", "box2.behind")
    assert config.pins.debounce_seconds == 0.05 and config.pins.void_hold_seconds == 3.0
    assert config.devices.panel_pin_factory is None
    assert config.display.supervisor_pin is None


def test_every_problem_is_reported_at_once_with_its_key(tmp_path: Path) -> None:
    text = (
        DEMO.replace('table_id = "DEMO1"', 'table_id = "T/1"\ncolour = "green"')
        .replace("max_bet_cents = 500000", "max_bet_cents = 100")
        .replace('shoe = "sim://shoe?seed=7"', 'shoe = "com3"')
        .replace('7 = "box3"', '7 = "box8"')
        .replace("split = 19", "split = 5")
        .replace("box_lamps = [17, 27, 22, 23, 24, 25, 12]", "box_lamps = [17, 27, 22, 23, 24, 25]")
        .replace("tower_red = 4", "tower_red = 40")
        .replace("void_hold_seconds = 3.0", 'void_hold_seconds = "long"')
        .replace('language = "fr"', 'language = "de"')
        .replace("port = 8080", "port = 80800")
        .replace('prefix = "casino"', 'prefix = "casino/#"')
    )
    found = problems(tmp_path, text)
    assert found.keys() == {
        "colour", "table_id", "limits.max_bet_cents", "devices.shoe", "devices.chip_readers[0].antennas.7",
        "devices.chip_readers", "pins.split", "pins.box_lamps", "pins.tower_red", "pins.void_hold_seconds",
        "display.language", "display.port", "mqtt.prefix",
    }
    assert "BCM 5 is also pins.deal" in found["pins.split"]
    assert "no lamp for box7" in found["pins.box_lamps"]
    assert "unknown zone 'box8'" in found["devices.chip_readers[0].antennas.7"]
    assert "no antenna reads box3" in found["devices.chip_readers"]
    assert "below the minimum 500" in found["limits.max_bet_cents"]
    assert "expected a number" in found["pins.void_hold_seconds"]


def test_missing_sections_and_wrong_types_are_named(tmp_path: Path) -> None:
    found = problems(tmp_path, 'table_id = 7\nrules = "fr"\n[devices]\nchip_readers = "usb"\n[display]\nport = "80"\n')
    assert {"table_id", "data_dir", "rules", "devices.shoe", "devices.chip_readers", "pins.deal", "pins.box_lamps",
            "display.port"} <= found.keys()
    assert "expected a string, not an integer" in found["table_id"]


def test_rule_and_pin_factory_and_reader_problems(tmp_path: Path) -> None:
    text = MINIMAL.replace("boxes = 2", "boxes = 2\nlate_surrender = true").replace(
        'shoe = "sim://shoe"', 'shoe = "serial://"\npanel_pin_factory = "gpio"'
    ) + """
[[devices.chip_readers]]
url = "usb://12345"
antennas = { 1 = "box1" }
[[devices.chip_readers]]
vendor_id = 0x1209
antennas = { 0 = "box1", x = "box2", 2 = 3 }
[[devices.chip_readers]]
url = "sim://reader"
antennas = { 1 = "box1" }
"""
    found = problems(tmp_path, text)
    assert found.keys() == {
        "rules.late_surrender", "devices.shoe", "devices.panel_pin_factory", "devices.chip_readers[1].url",
        "devices.chip_readers[2].product_id", "devices.chip_readers[3].url",
    }
    assert "sim://reader is also devices.chip_readers[0]" in found["devices.chip_readers[3].url"]


def test_antenna_numbers_and_zone_types_are_checked(tmp_path: Path) -> None:
    text = MINIMAL.replace('antennas = { 1 = "box1", 2 = "box2", 3 = "box2.behind" }',
                           'antennas = { 1 = "box1", 2 = "box2", 0 = "box2.behind", x = "box1.insurance", 4 = 3 }')
    found = problems(tmp_path, text)
    assert found.keys() == {"devices.chip_readers[0].antennas.0", "devices.chip_readers[0].antennas.x",
                            "devices.chip_readers[0].antennas.4"}


def test_mqtt_problems(tmp_path: Path) -> None:
    text = MINIMAL + '[mqtt]\nurl = "http://broker"\ncert_file = "client.pem"\nkeepalive = 5\n'
    (tmp_path / "client.pem").write_text("x", encoding="utf-8")
    found = problems(tmp_path, text)
    assert found.keys() == {"mqtt.url", "mqtt.key_file", "mqtt.keepalive"}
    text = MINIMAL + '[mqtt]\nurl = "mqtt://broker:1883"\nca_file = "ca.pem"\n'
    (tmp_path / "ca.pem").write_text("x", encoding="utf-8")
    assert "use mqtts://" in problems(tmp_path, text)["mqtt.url"]


def test_bad_secrets_name_where_they_came_from(tmp_path: Path) -> None:
    found = problems(tmp_path, MINIMAL, {ENV_SUPERVISOR_PIN: "12ab", ENV_PIT_TOKEN: "short"})
    assert found.keys() == {ENV_SUPERVISOR_PIN, ENV_PIT_TOKEN}


def test_too_many_lamps_and_a_bad_lamp_entry(tmp_path: Path) -> None:
    found = problems(tmp_path, MINIMAL.replace("box_lamps = [17, 27]", 'box_lamps = [17, "x", 22]'))
    assert found.keys() == {"pins.box_lamps[1]", "pins.box_lamps"}


def test_unreadable_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigInvalidError) as caught:
        load_config(tmp_path / "nope.toml")
    assert caught.value.problems[0].key == "file"
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "table_id = "))


def test_the_shoe_is_a_device_path_or_a_url_without_line_settings(tmp_path: Path) -> None:
    path_config = load_config(write(tmp_path, MINIMAL.replace('shoe = "sim://shoe"', 'shoe = "/dev/table-shoe"')),
                              environ={})
    assert path_config.devices.shoe == "/dev/table-shoe"
    baud = problems(tmp_path, MINIMAL.replace('shoe = "sim://shoe"', 'shoe = "serial:///dev/ttyACM0?baudrate=9600"'))
    assert "115200 baud" in baud["devices.shoe"] and "baudrate=9600" in baud["devices.shoe"]
    relative = problems(tmp_path, MINIMAL.replace('shoe = "sim://shoe"', 'shoe = "ttyACM0"'))
    assert "scheme" in relative["devices.shoe"]


def test_casino_id_is_optional_and_checked(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, MINIMAL), environ={}).devices.casino_id is None
    named = MINIMAL.replace('shoe = "sim://shoe"', 'shoe = "sim://shoe"\ncasino_id = 42')
    assert load_config(write(tmp_path, named), environ={}).devices.casino_id == 42
    wide = problems(tmp_path, MINIMAL.replace('shoe = "sim://shoe"', 'shoe = "sim://shoe"\ncasino_id = 70000'))
    assert "0..65535" in wide["devices.casino_id"]


def test_zone_helpers() -> None:
    assert zone_names(1) == ("box1", "box1.behind", "box1.insurance")
    assert zone_box("box7.insurance") == 7 and zone_box("box3") == 3


def test_check_config_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", str(CONFIGS / "demo.toml")]) == 0
    out = capsys.readouterr().out
    assert "ok" in out and "table DEMO1" in out and "21 zones" in out
    bad = write(tmp_path, DEMO.replace("split = 19", "split = 5").replace('language = "fr"', "language = 1"))
    assert main(["check-config", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("2 problems")
    assert {re.split(r":\s", line.strip(), maxsplit=1)[0] for line in lines[1:]} == {"pins.split",
                                                                                     "display.language"}


def test_the_checkpoint_interval_is_configurable_and_checked(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, MINIMAL), environ={}).journal.checkpoint_rows == 2000
    config = load_config(write(tmp_path, MINIMAL + "[journal]\ncheckpoint_rows = 500\n"), environ={})
    assert config.journal.checkpoint_rows == 500
    found = problems(tmp_path, MINIMAL + "[journal]\ncheckpoint_rows = 5\n")
    assert found == {"journal.checkpoint_rows": "5: 100 to 1000000 rows between two checkpoints"}
    assert "journal.every" in problems(tmp_path, MINIMAL + "[journal]\nevery = 5\n")


def test_the_retry_of_a_journal_that_cannot_be_written_is_configurable_and_checked(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, MINIMAL), environ={}).journal.retry_seconds == 2.0
    config = load_config(write(tmp_path, MINIMAL + "[journal]\nretry_seconds = 0.2\n"), environ={})
    assert config.journal.retry_seconds == 0.2
    found = problems(tmp_path, MINIMAL + "[journal]\nretry_seconds = 0\n")
    assert found == {"journal.retry_seconds": "0.0: 0.05 to 60 seconds between two tries of a journal that cannot be "
                                              "written"}


def test_hyper_field_limits_load_and_a_bad_pair_names_its_key(tmp_path: Path) -> None:
    """55-4 6°: the director sets the hyper black jack field's minimum and maximum per case."""
    text = MINIMAL + "\n[limits]\nhyper_min_bet_cents = 1000\nhyper_max_bet_cents = 20000\n"
    config = load_config(write(tmp_path, text), environ={})
    assert (config.limits.hyper_min_bet_cents, config.limits.hyper_max_bet_cents) == (1000, 20_000)
    found = problems(tmp_path, text.replace("hyper_max_bet_cents = 20000", "hyper_max_bet_cents = 900"))
    assert "below the minimum 1000" in found["limits.hyper_max_bet_cents"]


def test_the_surrender_button_is_an_optional_pin(tmp_path: Path) -> None:
    """A panel wired before surrender (55-4 1°, 2020) has no such button and its configuration still loads; one
    that has it names its pin, checked like the others."""
    before = load_config(write(tmp_path, MINIMAL), environ={})
    assert before.pins is not None and before.pins.surrender is None and "SURRENDER" not in before.pins.buttons
    wired = load_config(write(tmp_path, MINIMAL.replace("confirm = 21\n", "confirm = 21\nsurrender = 14\n")),
                        environ={})
    assert wired.pins is not None and wired.pins.buttons["SURRENDER"] == 14
    assert problems(tmp_path, MINIMAL.replace("confirm = 21\n", "confirm = 21\nsurrender = 21\n")) == {
        "pins.surrender": "BCM 21 is also pins.confirm"}
    assert "pins.surrender" in problems(tmp_path, MINIMAL.replace("confirm = 21\n", "confirm = 21\nsurrender = 40\n"))


def test_the_seance_option_is_off_by_default_and_checked(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, MINIMAL), environ={}).seance.required is False  # an old config deals as before
    config = load_config(write(tmp_path, MINIMAL + "[seance]\nrequired = true\n"), environ={})
    assert config.seance.required is True
    assert "seance.required" in problems(tmp_path, MINIMAL + "[seance]\nrequired = \"yes\"\n")
    assert "seance.open" in problems(tmp_path, MINIMAL + "[seance]\nopen = true\n")
