"""The table's configuration: one TOML file, loaded once into one frozen, typed object.

`load_config(path)` reads the file, applies the environment overrides for
secrets and checks everything before returning a `TableConfig`; every problem
found (unknown key, wrong type, bad value, pin used twice, unknown zone, missing
box lamp...) is collected and raised together as one `ConfigInvalidError`,
each naming its dotted key (``pins.split``, ``devices.chip_readers[1].antennas.4``).

Layout (see ``configs/demo.toml`` and ``configs/pi.toml``)::

    table_id = "T01"                       # letters, digits, - and _ (used in MQTT topics)
    data_dir = "/var/lib/table-runtime"    # journal.db lives here
    [rules]     profile + overrides        # table_runtime.game.rules.rules_from_mapping
    [limits]    min_bet_cents, max_bet_cents, buy_in_max_cents (the largest buy-in recorded at once)
    [devices]   shoe (URL), panel_pin_factory, gpio_chip, chip_registry, [[devices.chip_readers]]
    [pins]      BCM numbers of buttons, box_lamps (one per box), tower lights, buzzer; timings
    [mqtt]      url (absent: no feed), prefix, username, password_file, ca_file, cert_file, key_file, client_id,
                replay_secret_env (the environment variable holding the floor's replay secret; absent: no replay)
    [display]   host, port, language, supervisor_pin_file, pit_token_file, allowed_hosts
    [metrics]   host, port                 # the Prometheus endpoint (absent: none; needs the `metrics` extra)
    [clock]     sync_wait_seconds          # how long start-up waits for a synchronised clock (docs/journal.md)
    [player_cards]  reader, secret_file, event_size, [player_cards.boxes]   # the player card readers
    [staff]     registry, badge_seconds    # the staff registry: dealers log in, supervisors act by name

Relative paths are relative to the configuration file's directory. Secrets come
from the environment first, then from their files: ``TABLE_MQTT_PASSWORD``,
``TABLE_SUPERVISOR_PIN``, ``TABLE_PIT_TOKEN``, ``TABLE_PLAYER_CARD_SECRET``.
"""

from table_runtime.config.loader import load_config
from table_runtime.config.model import (
    BUTTONS,
    ENV_MQTT_PASSWORD,
    ENV_PIT_TOKEN,
    ENV_SUPERVISOR_PIN,
    LANGUAGES,
    PIN_FACTORIES,
    READER_SCHEMES,
    SHOE_SCHEMES,
    ChipReaderConfig,
    ClockConfig,
    ConfigInvalidError,
    DevicesConfig,
    DisplayConfig,
    JournalConfig,
    MetricsConfig,
    MqttConfig,
    PanelPins,
    TableConfig,
    zone_box,
    zone_names,
)
from table_runtime.config.summary import describe

__all__ = [
    "BUTTONS",
    "ENV_MQTT_PASSWORD",
    "ENV_PIT_TOKEN",
    "ENV_SUPERVISOR_PIN",
    "LANGUAGES",
    "PIN_FACTORIES",
    "READER_SCHEMES",
    "SHOE_SCHEMES",
    "ChipReaderConfig",
    "ClockConfig",
    "ConfigInvalidError",
    "DevicesConfig",
    "DisplayConfig",
    "JournalConfig",
    "MetricsConfig",
    "MqttConfig",
    "PanelPins",
    "TableConfig",
    "describe",
    "load_config",
    "zone_box",
    "zone_names",
]
