"""The log line of a device coming online (with who it says it is) or going offline (with why), and of the
shoe's gate locked or unlocked by its full resend buffer.

`TableApp` hands every shoe and reader event here; what an engineer reading
``journalctl -u table-runtime`` needs is which shoe and which reader answered
(serial number, firmware, protocol), and when one went silent.
"""

from __future__ import annotations

import logging

from drivers.ports import ReaderEvent, ReaderOffline, ReaderOnline
from firmware_bridge.shoe import events as shoe_events
from table_runtime.game.shoe_count import shoe_id_of

log = logging.getLogger("table_runtime.devices")


def log_device_event(event: shoe_events.ShoeEvent | ReaderEvent) -> None:
    """One line for a device online or offline, or the shoe's buffer gate; nothing for the others (cards, scans)."""
    if isinstance(event, shoe_events.ShoeOnline):
        identity = event.identity
        log.info("shoe online on %s: serial %s, firmware %s, protocol %d, boot %d; shoe %s, %d cards drawn",
                 event.device, identity.serial_number, identity.firmware_version, identity.protocol_version,
                 identity.boot_id, shoe_id_of(event.shoe_id), event.cards_drawn)
    elif isinstance(event, shoe_events.ShoeOffline):
        log.warning("shoe offline on %s: %s", event.device, event.reason)
    elif isinstance(event, shoe_events.BufferGateChanged):
        log.warning("shoe gate %s: %d of %d events unacknowledged in its resend buffer",
                    "locked" if event.locked else "unlocked", event.held, event.capacity)
    elif isinstance(event, ReaderOnline):
        log.info("chip reader %s online: serial %s, firmware %s, protocol %s", event.reader, event.serial,
                 event.firmware, event.protocol)
    elif isinstance(event, ReaderOffline):
        log.warning("chip reader %s offline (zones %s): %s", event.reader, ", ".join(event.zones), event.reason)
