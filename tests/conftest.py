"""Settings for the whole suite.

Hypothesis: no per-example deadline (CI shares two cores with browsers, brokers
and ptys, so wall-clock deadlines only measure the machine's load); under CI
the examples are derandomized, so a run is repeatable and a red build is a real
regression, while local runs keep exploring new examples.

Order: the tests marked ``slow`` (a few seconds or more each: a demo killed and
restarted, the compiled build) run first, the longest bound first. ``scripts/test`` hands the tests to its
three workers with pytest-xdist's work stealing, so a long test started late can
no longer leave the other workers idle while one finishes it (tests/README.md,
"The suite").

The CLIs the tests start keep the simulated players' solved strategy (simulators/strategy_cache.py) in
this run's own cache directory (``XDG_CACHE_HOME``, one per test process): solved at a worker's first start
of each profile, read back at the others, never from or into this user's home or a run before.

Chromium: one headless browser per test process (xdist worker), shared by the
display's and the pit page's tests; each test gets a context and page of its own
(`page`), so no cookie, storage or open socket outlives a test.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, settings
from playwright.async_api import Browser, Page, async_playwright

from tests.browser import CHROMIUM, CHROMIUM_ARGS

settings.register_profile("local", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "local")


@pytest.fixture(scope="session", autouse=True)
def run_cache_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests first, the longest bound (`pytest.mark.timeout`) first among them: the compiled build,
    bounded at 20 minutes, must not be the last test a worker starts. Otherwise the collection's order, the
    same on every xdist worker."""
    default = float(config.getini("timeout") or 0)

    def order(item: pytest.Item) -> tuple[bool, float]:
        if item.get_closest_marker("slow") is None:
            return (True, 0.0)
        bound = item.get_closest_marker("timeout")
        return (False, -float(bound.args[0]) if bound is not None and bound.args else -default)

    items.sort(key=order)


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
