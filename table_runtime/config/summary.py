"""`describe`: the one-paragraph summary `check-config` and `run` print of a loaded configuration."""

from __future__ import annotations

from table_runtime.config.model import TableConfig
from table_runtime.config.services import redacted_url


def describe(config: TableConfig) -> str:
    """A one-paragraph summary for `check-config` (no secrets)."""
    limits = config.limits
    readers = config.devices.chip_readers
    url = redacted_url(config.mqtt.url or "")
    mqtt = f"mqtt {url} prefix {config.mqtt.prefix}" if config.mqtt.enabled else "mqtt off"
    secrets = [name for name, value in (("supervisor PIN", config.display.supervisor_pin),
                                        ("pit token", config.display.pit_token),
                                        ("mqtt password", config.mqtt.password),
                                        ("player card secret", config.player_cards.secret)) if value]
    return (
        f"table {config.table_id}: rules {config.rules.profile} ({config.rules.boxes} boxes, "
        f"{config.rules.decks} decks), limits {limits.min_bet_cents / 100:.2f} to {limits.max_bet_cents / 100:.2f}; "
        f"data {config.data_dir}; shoe {config.devices.shoe}; {len(readers)} chip reader"
        f"{'s' if len(readers) != 1 else ''} reading {len(config.zones)} zones; "
        f"pins from {config.devices.panel_pin_factory or 'the default factory'}"
        f"{'' if config.devices.gpio_chip is None else f' on chip {config.devices.gpio_chip!r}'}; {mqtt}; "
        f"display {config.display.host}:{config.display.port} ({config.display.language}); "
        f"{f'metrics {config.metrics.host}:{config.metrics.port}' if config.metrics.enabled else 'metrics off'}; "
        f"{len(config.player_cards.readers)} player card reader{'s' if len(config.player_cards.readers) != 1 else ''}; "
        f"secrets: {', '.join(secrets) or 'none'}"
    )
