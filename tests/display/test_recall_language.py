"""Recall mode steps through the journal's rounds, clearly marked; the page speaks French and English."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from table_runtime.display.server import STATIC_DIR as STATIC
from tests.display.conftest import screenshot
from tests.display.helpers import box, open_display, publish_and_wait
from tests.display.scripted import ScriptedBackend, alarm, playing, recalled_round, settlement

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


async def test_recall_steps_through_the_last_rounds(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    backend.rounds = [recalled_round(15, 1000), recalled_round(16, 1100)]
    await open_display(page, server)
    body = page.locator("body")
    bar = page.locator("#recall-bar")
    await expect(bar).to_be_hidden()

    await page.locator("#recall-open").click()
    await expect(body).to_have_attribute("data-mode", "recall")
    await expect(bar).to_be_visible()
    await expect(bar.locator(".recall-mark")).to_have_text("RAPPEL")
    # The newest round opens at its first step.
    await expect(page.locator("#recall-title")).to_have_text("Manche 16 (réglée) · étape 1/3")
    await expect(page.locator("#recall-step-text")).to_contain_text("Carte tirée — 9♣ → case 2")
    await expect(page.locator("#round")).to_have_text("16")
    await expect(box(page, 2).locator(".card")).to_have_count(1)
    for name in ("NEXT", "DOUBLE", "UNDO", "VOID", "MANUAL_CARD"):
        await expect(page.locator(f"#actions [data-command='{name}']")).to_be_disabled()

    await page.locator("#recall-next-step").click()
    await expect(page.locator("#recall-title")).to_have_text("Manche 16 (réglée) · étape 2/3")
    await expect(box(page, 2).locator(".hand .total")).to_have_text("11")
    await expect(page.locator("#bank-state")).to_have_text("Doit tirer")

    await page.keyboard.press("ArrowRight")
    await expect(page.locator("#recall-title")).to_have_text("Manche 16 (réglée) · étape 3/3")
    await expect(box(page, 2).locator(".net b")).to_have_text("+50,00\u00a0€")
    await expect(page.locator("#bank-state")).to_have_text("Sautée")
    await expect(page.locator("#recall-next-step")).to_be_disabled()  # nothing after the newest step
    await screenshot(page, "recall-fr")

    # A live change while recalling waits: the recalled step stays on screen.
    await server.publish(settlement())
    await expect(body).to_have_attribute("data-shown-seq", "1103")
    await page.locator("#recall-prev-round").click()
    await expect(page.locator("#recall-title")).to_have_text("Manche 15 (réglée) · étape 1/3")
    await page.keyboard.press("ArrowLeft")  # already the oldest step: stays
    await expect(bar).to_have_attribute("data-step", "0")
    await expect(page.locator("#recall-prev-step")).to_be_disabled()

    await page.locator("#recall-exit").click()
    await expect(body).to_have_attribute("data-mode", "live")
    await expect(bar).to_be_hidden()
    await expect(body).to_have_attribute("data-shown-seq", "1260")  # the live change shows now
    await expect(page.locator("#actions [data-command='CONFIRM']")).to_be_enabled()
    assert backend.commands == []


async def test_recall_of_a_voided_round_says_who_voided_it_and_why(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    voided = recalled_round(16, 1100)
    voided.update(result="voided", payouts=[], void={"by": "supervisor", "reason": "misdeal"})
    last = voided["steps"][-1]
    last.update(type="Void", text="round voided by supervisor: misdeal", events=[
        {"type": "PhaseChanged", "phase": "voided"}, {"type": "RoundVoided", "round": 16, "by": "supervisor",
                                                      "reason": "misdeal"}])
    other = recalled_round(17, 1200)
    other.update(result="voided", payouts=[], void={"by": "pit boss", "reason": "shoe dropped"})
    backend.rounds = [voided, other]
    await open_display(page, server)
    await page.locator("#recall-open").click()
    # a reason the page knows is in its language; any other as the supervisor gave it
    await expect(page.locator("#recall-title")).to_have_text(
        "Manche 17 (annulée par pit boss : shoe dropped) · étape 1/3")
    await page.locator("#recall-prev-round").click()
    await expect(page.locator("#recall-title")).to_have_text(
        "Manche 16 (annulée par le superviseur : maldonne) · étape 1/3")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowRight")
    await expect(page.locator("#recall-step-text")).to_contain_text("manche annulée par le superviseur : maldonne")
    await page.locator("#lang-en").click()
    await expect(page.locator("#recall-title")).to_have_text(
        "Round 16 (voided by the supervisor: misdeal) · step 3/3")
    await expect(page.locator("#recall-step-text")).to_contain_text("round voided by the supervisor: misdeal")


async def test_recall_with_no_rounds_says_so(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    await page.locator("#recall-open").click()
    await expect(page.locator("#toast")).to_have_text("Aucune manche à rappeler")
    await expect(page.locator("body")).to_have_attribute("data-mode", "live")


async def test_language_switch_changes_every_label_and_money_format(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    await expect(page.locator("#bank h2")).to_have_text("Banque")
    await page.locator("#lang-en").click()
    await expect(page.locator("html")).to_have_attribute("lang", "en")
    await expect(page.locator("#bank h2")).to_have_text("Bank")
    await expect(page.locator("#turn")).to_have_text("To play: box 3")
    await expect(page.locator("#actions [data-command='NEXT']")).to_have_text("NEXT")
    await expect(page.locator("#actions [data-command='VOID']")).to_have_text("VOID ROUND")
    await expect(box(page, 3).locator(".stake.seated b")).to_have_text("€10.00")
    await expect(box(page, 3).locator(".hand .status")).to_have_text("playing")
    await expect(page.locator("#phase")).to_have_text("Playing")
    await publish_and_wait(page, server, settlement())
    await expect(box(page, 3).locator(".net b")).to_have_text("+€10.00")
    await expect(page.locator("#cut-card")).to_have_text("Cut card reached")
    await screenshot(page, "settlement-en")

    # The choice is remembered by this browser across a reload.
    await page.reload()
    await expect(page.locator("#bank h2")).to_have_text("Bank")
    await page.locator("#lang-fr").click()
    await expect(page.locator("#bank h2")).to_have_text("Banque")
    await expect(page.locator("#phase")).to_have_text("Jeu")  # after the reload: the backend's snapshot


async def test_language_from_the_address_and_from_the_server(page: Page, backend: ScriptedBackend) -> None:
    async with DisplayServer(backend, port=0, language="en") as server:
        await open_display(page, server)
        await expect(page.locator("#bank h2")).to_have_text("Bank")
        await open_display(page, server, "?lang=fr")
        await expect(page.locator("#bank h2")).to_have_text("Banque")
        await publish_and_wait(page, server, playing(seq=2000))
        await expect(page.locator("#turn")).to_have_text("À jouer : case 3")


async def test_recall_of_steps_that_carry_only_the_game_part(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    recalled = recalled_round(16, 1100)
    for step in recalled["steps"]:
        for key in ("schema_version", "table_id", "seq", "alarms", "devices", "recovered"):
            del step["snapshot"][key]
    recalled["alarms"] = [alarm(2, "card_no_hand", "card 7S with no hand to take it", box_number=None, amounts={})]
    recalled["alarms"][0]["seq"] = 1102
    backend.rounds = [recalled]
    await open_display(page, server)
    await page.locator("#recall-open").click()
    await expect(page.locator("#recall-title")).to_have_text("Manche 16 (réglée) · étape 1/3")
    await expect(page.locator("body")).to_have_attribute("data-shown-seq", "1101")  # the step's seq
    await expect(page.locator("#table-id")).to_have_text("T1")  # the round's table
    await expect(box(page, 2).locator(".card")).to_have_attribute("data-card", "9C")
    await expect(page.locator("#alarms")).to_be_hidden()  # raised at the next step
    await page.locator("#recall-next-step").click()
    await expect(page.locator("#alarms .alarm[data-alarm='2']")).to_contain_text("Carte sans main")
    await expect(page.locator("#alarms button.ack")).to_have_count(0)  # nothing to acknowledge in recall


async def test_every_string_exists_in_both_languages(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    dictionary: dict[str, dict[str, str]] = await page.evaluate("() => window.DISPLAY_STRINGS")
    assert set(dictionary) == {"fr", "en"}
    assert set(dictionary["fr"]) == set(dictionary["en"])
    used_in_page = await page.evaluate("() => [...document.querySelectorAll('[data-i18n]')].map((n) => n.dataset.i18n)")
    script = "\n".join(path.read_text(encoding="utf-8") for path in STATIC.glob("*.js") if path.name != "i18n.js")
    used_in_script = re.findall(r"""\bt\("([a-z_A-Z]+)"[,)]""", script)
    assert used_in_script, "no t(...) calls found: the pattern is out of date"
    assert sorted(set(used_in_page + used_in_script) - set(dictionary["fr"])) == []
