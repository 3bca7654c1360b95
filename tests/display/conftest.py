"""Fixtures for the display tests: one headless system Chromium per session, a server and an HTTP session per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from table_runtime.display import DisplayServer
from tests.display.scripted import ScriptedBackend, playing

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SUPERVISOR_PIN = "2468"
PIT_TOKEN = "pit-token-for-tests"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "display"


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        await chromium.close()


@pytest_asyncio.fixture(loop_scope="session")
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A fresh 1080p page; a JavaScript error or a console error (a CSP violation, a missing file) fails the test.

    Failed WebSocket connections are expected while a test has stopped the server.
    """
    context = await browser.new_context(viewport={"width": 1920, "height": 1080}, locale="fr-FR")
    opened = await context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console",
        lambda message: errors.append(message.text)
        if message.type == "error" and "WebSocket connection" not in message.text
        else None,
    )
    yield opened
    await context.close()
    assert errors == [], f"errors on the page: {errors}"


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
