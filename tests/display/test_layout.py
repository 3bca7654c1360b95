"""Nothing on the dealer's screen is cut off, covered or too small, for every rule profile in both languages and
every phase, at the three screen sizes the table is used at: 800x480 (the Pi touch screen), 1280x800 (a pit
tablet) and 1920x1080 (the dealer).

The check (layout_check.js, run in the page) fails on any element whose content overflows its box (cut
off, scrolled away, or ellipsised), anything past the edge of the screen, any text (a card's rank among
it) with another element drawn over it, and text under 12 px; with a keypad open (a card by hand, the
supervisor PIN) the dialog alone is checked, its keys a finger wide. A screenshot of each phase at each size
in both languages goes to test-artifacts/display/layout/ for the default profile (fr-casino: the README's
come from there), and for another profile only where the check found a problem: the picture of what failed.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from table_runtime.display import DisplayServer
from tests.display.conftest import ARTIFACTS
from tests.display.helpers import open_display, publish_and_wait
from tests.display.phases import PHASES, PROFILES, betting, for_profile, recall_rounds, snapshot_of
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


async def show(page: Page, phase: str, language: str, profile: str = "fr-casino") -> DisplayServer:
    """Open the display on `phase` (recall: the last step of the newest round) in `language`, as a table of
    `profile` shows it."""
    backend = ScriptedBackend(for_profile(betting() if phase == "recall" else snapshot_of(phase), profile),
                              rounds=[profiled_round(item, profile) for item in recall_rounds()])
    server = DisplayServer(backend, port=0, supervisor_pin="2468", language=language)
    await server.__aenter__()
    await open_display(page, server)
    if phase == "recall":
        await open_recall(page)
    await settled(page)
    return server


def profiled_round(recalled: dict[str, Any], profile: str) -> dict[str, Any]:
    """A recalled round whose every step's snapshot is a table of `profile`."""
    return {**recalled, "steps": [{**step, "snapshot": for_profile(step["snapshot"], profile)}
                                  for step in recalled["steps"]]}


async def open_recall(page: Page) -> None:
    await page.locator("#recall-open").click()
    await expect(page.locator("#recall-bar")).to_be_visible()
    for _ in range(2):
        await page.locator("#recall-next-step").click()
    await expect(page.locator("#recall-bar")).to_have_attribute("data-step", "2")


async def settled(page: Page) -> None:
    await page.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")


async def problems_on(page: Page) -> list[str]:
    found: list[str] = await page.evaluate(CHECK, MIN_TEXT_PX)
    return found


@pytest.mark.timeout(300)
@pytest.mark.parametrize("sized", list(SIZES), indirect=True)
async def test_nothing_is_cut_off_covered_or_too_small(sized: Page) -> None:
    """Every profile (the 2020 one with ABANDON, the hyper field, seven full boxes and seated players' names) in
    both languages through every phase, on one page per size: the language by its own buttons, each profile's
    phase published to the page as the runtime publishes a snapshot, recall opened and left as the dealer does."""
    size = "x".join(str(n) for n in (sized.viewport_size or {}).values())
    backend = ScriptedBackend(snapshot_of("betting"), rounds=recall_rounds())
    SHOTS.mkdir(parents=True, exist_ok=True)
    found: list[str] = []
    seq = 10_000
    # Recall is opened once per language and profile, faster on a quiet machine than the gate's one request a second
    # per screen (display/recall_gate.py): the server's clock moves on by more than that at each reading.
    readings = itertools.count()
    async with DisplayServer(backend, port=0, supervisor_pin="2468", language="fr",
                             clock=lambda: 2.0 * next(readings)) as server:
        await open_display(sized, server)
        for language in ("fr", "en"):
            await sized.locator(f"#lang-{language}").click()
            await expect(sized.locator("html")).to_have_attribute("lang", language)
            for profile in PROFILES:
                backend.rounds = [profiled_round(item, profile) for item in recall_rounds()]
                for phase in PHASES:
                    seq += 1
                    shown = {**for_profile(betting() if phase == "recall" else snapshot_of(phase), profile),
                             "seq": seq}
                    backend.current = shown
                    await publish_and_wait(sized, server, shown)
                    if phase == "recall":
                        await open_recall(sized)
                    await settled(sized)
                    problems = await problems_on(sized)
                    if profile == "fr-casino" or problems:
                        tail = "" if profile == "fr-casino" else f"-{profile}"
                        await sized.screenshot(path=str(SHOTS / f"{phase}-{size}-{language}{tail}.png"))
                    found += [f"{profile} {language} {phase}: {problem}" for problem in problems]
                    if phase == "recall":
                        await sized.locator("#recall-exit").click()
                        await expect(sized.locator("#recall-bar")).to_be_hidden()
    assert found == [], "\n".join(found)


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
