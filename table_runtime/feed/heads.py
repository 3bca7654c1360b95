"""When the publisher sends the retained ``head`` (the journal's last row as it is now): at connection, once a
burst is sent past the last head, and at least every `head_interval` seconds."""

from __future__ import annotations


class HeadSchedule:
    """When the next head is due; times are the caller's monotonic clock."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._sent: tuple[int, float] | None = None  # seq of the last head published, and when

    def due(self, position: int, *, idle: bool, now: float) -> bool:
        """Due `interval` after the last one, and once a burst read up to `position` is sent (`idle`) past it."""
        if self._sent is None:
            return True
        seq, when = self._sent
        return (idle and position > seq) or now - when >= self.interval

    def sent(self, seq: int, now: float) -> None:
        self._sent = (seq, now)
