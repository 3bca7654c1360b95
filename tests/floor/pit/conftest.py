"""Fixtures of the pit page tests: a real Mosquitto per test, a topic prefix, the display tests' Chromium."""

from __future__ import annotations

from tests.display.conftest import browser, page
from tests.feed.conftest import broker, prefix

__all__ = ["broker", "browser", "page", "prefix"]  # the feed tests' broker and prefix, the display tests' Chromium
