"""Fixtures for the display tests: a server and an HTTP session per test (the shared Chromium and its fresh page per
test: tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest_asyncio
from playwright.async_api import Page

from table_runtime.display import DisplayServer
from tests.browser import CHROMIUM, CHROMIUM_ARGS
from tests.display.scripted import ScriptedBackend, playing

__all__ = ["ARTIFACTS", "CHROMIUM", "CHROMIUM_ARGS", "PIT_TOKEN", "SUPERVISOR_PIN", "screenshot"]

SUPERVISOR_PIN = "2468"
PIT_TOKEN = "pit-token-for-tests"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "display"


@pytest_asyncio.fixture(loop_scope="session")
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        yield session


@pytest_asyncio.fixture(loop_scope="session")
async def backend() -> ScriptedBackend:
    return ScriptedBackend(playing())


@pytest_asyncio.fixture(loop_scope="session")
async def server(backend: ScriptedBackend) -> AsyncIterator[DisplayServer]:
    async with DisplayServer(backend, port=0, supervisor_pin=SUPERVISOR_PIN, pit_token=PIT_TOKEN) as running:
        yield running


async def screenshot(page: Page, name: str) -> Path:
    """Save a screenshot under test-artifacts/display/ (git-ignored) and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    await page.screenshot(path=str(path))
    return path
