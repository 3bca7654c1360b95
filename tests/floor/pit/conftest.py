"""Fixtures of the pit page tests: a real Mosquitto per test and a topic prefix (the feed tests'); Chromium and a
fresh page per test come from tests/conftest.py, the browser shared with the display's tests."""

from __future__ import annotations

from tests.feed.conftest import broker, prefix

__all__ = ["broker", "prefix"]  # the feed tests' broker and prefix
