"""Nothing on the dealer's screen is cut off, covered or too small, in every phase, at the three screen sizes
the table is used at: 800x480 (the Pi touch screen), 1280x800 (a pit tablet) and 1920x1080 (the dealer).

The check (layout_check.js, run in the page) fails on any element whose content overflows its box (cut
off, scrolled away, or ellipsised), anything past the edge of the screen, any text (a card's rank among
it) with another element drawn over it, and text under 12 px; with a keypad open (a card by hand, the
supervisor PIN) the dialog alone is checked, its keys a finger wide. A screenshot of each phase at each size
goes to test-artifacts/display/layout/ (the README's come from there).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from table_runtime.display import DisplayServer
from tests.display.conftest import ARTIFACTS
from tests.display.helpers import open_display
from tests.display.phases import PHASES, betting, recall_rounds, snapshot_of
from tests.display.scripted import ScriptedBackend

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]

SIZES = {"800x480": (800, 480), "1280x800": (1280, 800), "1920x1080": (1920, 1080)}
MIN_TEXT_PX = 12
CHECK = (Path(__file__).parent / "layout_check.js").read_text(encoding="utf-8")
SHOTS = ARTIFACTS / "layout"


@pytest_asyncio.fixture(loop_scope="session")
async def sized(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[Page]:
    width, height = SIZES[request.param]
    context = await browser.new_context(viewport={"width": width, "height": height}, locale="fr-FR",
                                        timezone_id="Europe/Paris")
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    await context.close()
    assert errors == [], f"errors on the page: {errors}"


async def show(page: Page, phase: str, language: str) -> DisplayServer:
    """Open the display on `phase` (recall: the last step of the newest round) in `language`."""
    backend = ScriptedBackend(betting() if phase == "recall" else snapshot_of(phase), rounds=recall_rounds())
    server = DisplayServer(backend, port=0, supervisor_pin="2468", language=language)
    await server.__aenter__()
    await open_display(page, server)
    if phase == "recall":
        await page.locator("#recall-open").click()
        await expect(page.locator("#recall-bar")).to_be_visible()
        for _ in range(2):
            await page.locator("#recall-next-step").click()
        await expect(page.locator("#recall-bar")).to_have_attribute("data-step", "2")
    await page.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")
    return server


async def problems_on(page: Page) -> list[str]:
    found: list[str] = await page.evaluate(CHECK, MIN_TEXT_PX)
    return found


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("sized", list(SIZES), indirect=True)
async def test_nothing_is_cut_off_covered_or_too_small(sized: Page, phase: str, language: str) -> None:
    server = await show(sized, phase, language)
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        size = "x".join(str(n) for n in (sized.viewport_size or {}).values())
        await sized.screenshot(path=str(SHOTS / f"{phase}-{size}-{language}.png"))
        assert await problems_on(sized) == []
    finally:
        await server.__aexit__(None, None, None)


async def test_the_check_finds_a_covered_rank_a_cut_off_label_and_small_text(page: Page) -> None:
    """The check itself: it would fail on the faults it is for."""
    await page.set_content(
        "<body style='margin:0;font-size:20px'>"
        "<div style='display:flex'>"
        "<span class='card' style='width:60px;background:#fff'><span class='rank'>Q</span></span>"
        "<span class='card' style='width:60px;margin-left:-58px;background:#eee'>&nbsp;</span></div>"
        "<button style='width:40px;overflow:hidden;white-space:nowrap'>CONFIRMER</button>"
        "<div style='font-size:9px'>tiny</div></body>")
    found = "\n".join(await problems_on(page))
    assert 'covered by span.card "" at 2,11: span.rank "Q"' in found
    assert 'overflows its width' in found and 'button "CONFIRMER"' in found
    assert 'text of 9 px (under 12): div "tiny"' in found


@pytest.mark.parametrize("command", ["MANUAL_CARD", "VOID", "BUY_IN"])
@pytest.mark.parametrize("sized", list(SIZES), indirect=True)
async def test_the_card_and_pin_keypads_fit_every_screen(sized: Page, command: str) -> None:
    """The dialogs the dealer types into (a card by hand, the supervisor PIN, a buy-in): with one open, it is checked
    alone."""
    server = await show(sized, "split", "fr")
    try:
        await sized.locator(f"[data-command='{command}']").click()
        await expect(sized.locator("dialog[open]")).to_be_visible()
        size = "x".join(str(n) for n in (sized.viewport_size or {}).values())
        await sized.screenshot(path=str(SHOTS / f"keypad-{command.lower()}-{size}-fr.png"))
        assert await problems_on(sized) == []
        keys = await sized.locator("dialog[open] .keypad button").evaluate_all(
            "nodes => nodes.map((node) => node.getBoundingClientRect().height)")
        assert min(keys) >= 44  # a finger's width
    finally:
        await server.__aexit__(None, None, None)
