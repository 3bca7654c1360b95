"""The screen speaks one language at a time: every text it shows, in every phase, comes from the FR or the EN
catalogue (static/i18n.js), never from the runtime's English messages; players are named as a dealer names
them; recall shows the clock time of each step and the round's start and end.

"From the catalogue" is checked word by word: every word shown (numbers, amounts, cards, clock times and the
snapshot's own names excepted) must be a word of the catalogue of the
language on screen. An English message on the French screen fails ("refused", "the", "must"...), and so does
a French word on the English screen.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from table_runtime.display import DisplayServer
from table_runtime.game import citations
from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Input, Next, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds as recall_from_journal
from tests.display.helpers import box, open_display, publish_and_wait
from tests.display.phases import PHASES, alarms, recall_rounds, settlement_checked
from tests.display.scripted import ScriptedBackend, playing
from tests.display.test_layout import show
from tests.test_alarm_catalogue import DOC, documented_kinds

STATIC = Path(__file__).resolve().parents[2] / "table_runtime" / "display" / "static"

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]

WORD_SPLIT = re.compile(r"[\s·—→–:;,.()!?'’«»+/…≠=✓⚠◀▶%€−]+")
EXCEPTED = [
    re.compile(r"[−+]?€?\d[\d\u202f\u00a0 ,.]*(\u00a0€)?"),  # amounts, counts, totals, soft totals
    re.compile(r"\b\d{1,2}:\d{2}:\d{2}\b"),  # clock times
    re.compile(r"(10|[2-9AJQK])?[♠♥♦♣]"),  # cards
    re.compile(r"\bBJ\b"),
]


def words(text: str, names: set[str]) -> set[str]:
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    for pattern in EXCEPTED:
        text = pattern.sub(" ", text)
    return {word.lower() for word in WORD_SPLIT.split(text) if word and not word.isdigit()}


async def catalogue_words(page: Page, language: str) -> set[str]:
    strings: dict[str, dict[str, str]] = await page.evaluate("() => window.DISPLAY_STRINGS")
    found: set[str] = set()
    for text in strings[language].values():
        found |= words(re.sub(r"\{\w+\}", " ", text), set())
    return found


async def shown_texts(page: Page) -> list[str]:
    """Every visible text of the page, but the English details lines (English screens only), FR/EN and the
    cards' own rank and suit."""
    texts: list[str] = await page.evaluate("""() => {
        const out = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const owner = node.parentElement;
            if (!node.textContent.trim() || owner.closest(".details, #lang, .card")) continue;
            if (!owner.checkVisibility({ checkVisibilityCSS: true })) continue;
            out.push(node.textContent.trim());
        }
        return out;
    }""")
    return texts


def snapshot_names(snapshot: dict[str, Any]) -> set[str]:
    """The names the snapshot itself gives: the table, the shoe, the players."""
    names = {snapshot["table_id"], snapshot["shoe"]["shoe_id"]}
    for each in snapshot["boxes"]:
        names |= {each["owner"] or ""} | {b["owner"] for b in each["behind"]} | {p["owner"] for p in each["payouts"]}
    return {name for name in names if name}


@pytest_asyncio.fixture(loop_scope="session")
async def paris(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(viewport={"width": 1920, "height": 1080}, locale="fr-FR",
                                        timezone_id="Europe/Paris")
    yield await context.new_page()
    await context.close()


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("phase", PHASES)
async def test_every_word_shown_is_of_the_language_on_screen(paris: Page, phase: str, language: str) -> None:
    server = await show(paris, phase, language)
    try:
        known = await catalogue_words(paris, language)
        names = {"T1", "S-3", "seat2"}  # the recalled round's player has a name
        if phase != "recall":
            names |= snapshot_names(alarms() if phase == "alarms" else settlement_checked())
        strays = {f"{word!r} in {text!r}" for text in await shown_texts(paris) for word in words(text, names)
                  if word not in known}
        assert sorted(strays) == []
        if language == "fr":
            assert await paris.locator(".details").count() == 0  # the runtime's English lines: English screen only
    finally:
        await server.__aexit__(None, None, None)


async def test_the_check_finds_an_english_message_on_the_french_screen(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    await page.evaluate("document.querySelector('#turn').textContent = 'CONFIRM refused: the bank has 14'")
    known = await catalogue_words(page, "fr")
    strays = {word for text in await shown_texts(page) for word in words(text, set()) if word not in known}
    assert {"refused", "the", "has"} <= strays and "14" not in strays


async def test_every_alarm_kind_and_every_rule_read_in_both_languages(page: Page, server: DisplayServer) -> None:
    """Each kind of docs/alarms.md gets a body of its own (not the generic one) and every rule of the
    catalogue a text, in French and in English, with the amounts the kind names filled in."""
    await open_display(page, server)
    kinds = sorted({kind for listed in documented_kinds(DOC.read_text(encoding="utf-8")).values() for kind in listed})
    for language in ("fr", "en"):
        await page.locator(f"#lang-{language}").click()
        rendered: list[dict[str, str]] = await page.evaluate("""async (kinds) => {
            const { alarmBody, ruleText } = await import("/static/alarm.js");
            const { RULES } = await import("/static/i18n.js");
            const amounts = { expected_cents: 2000, seen_cents: 1500, bank_total: 14 };
            const bodies = kinds.map((kind) => ({ kind, text: alarmBody({ kind, amounts, message: "" }).text }));
            const rules = RULES.map(([rule]) => ({ kind: rule, text: ruleText(rule.replace("{decks}", "6")) }));
            return [...bodies, ...rules];
        }""", kinds)
        generic = "Alarme de la table" if language == "fr" else "Table alarm"
        known = await catalogue_words(page, language)
        for item in rendered:
            assert item["text"] and item["text"] != generic, f"{language}: no text of its own for {item['kind']}"
            assert "{" not in item["text"], f"{language}: a field left unfilled in {item}"
            assert words(item["text"], set()) <= known
    alarm = {"kind": "bank_must_draw", "amounts": {"bank_total": 14}, "message": "CONFIRM refused: the bank has 14"}
    body = await page.evaluate("async (a) => (await import('/static/alarm.js')).alarmBody(a).text", alarm)
    assert body == "The bank has 14 and must draw"


async def test_players_are_named_as_a_dealer_names_them(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    await publish_and_wait(page, server, settlement_checked())
    second = box(page, 2)
    await expect(second.locator("header")).to_have_text("2")  # the number once, no "box2" beside it
    await expect(second.locator(".payout").nth(1).locator(".payout-owner")).to_have_text("Derrière · main 1")
    snapshot = playing(seq=5000)
    snapshot["boxes"][2].update(owner="box3", behind=[{"owner": "box3.behind", "cents": 500}])
    await publish_and_wait(page, server, snapshot)
    await expect(box(page, 3).locator(".stake.behind .label")).to_have_text("Derrière")
    await expect(box(page, 3).locator("header")).to_have_text("3")
    await expect(box(page, 1).locator("header")).to_have_text("1seat1")  # a player with a name keeps it
    assert "box" not in (await page.locator("#boxes").inner_text()).lower()


async def test_recall_shows_the_clock_time_of_each_step_and_the_round_start_and_end(paris: Page) -> None:
    """The journal's ts 1764412345 is 11:32:25 in Paris; the recalled steps are 40 s apart."""
    backend = ScriptedBackend(playing(), rounds=recall_rounds())
    now = [0.0]
    async with DisplayServer(backend, port=0, clock=lambda: now[0]) as server:
        await open_display(paris, server)
        await paris.locator("#recall-open").click()
        await expect(paris.locator("#recall-times")).to_have_text("11:32:25 – 11:33:45")
        await expect(paris.locator("#recall-step-text .recall-clock")).to_have_text("11:32:25")
        await expect(paris.locator("#recall-step-text")).to_have_text("11:32:25Carte tirée — 9♣ → case 2")
        await paris.locator("#recall-next-step").click()
        await expect(paris.locator("#recall-step-text .recall-clock")).to_have_text("11:33:05")
        await expect(paris.locator("#recall-step-text .recall-what")).to_have_text(
            "DOUBLER — case 2 double (+25,00\u00a0€) · 2♥ → case 2")
        await paris.locator("#lang-en").click()
        await expect(paris.locator("#recall-step-text .recall-what")).to_have_text(
            "DOUBLE — box 2 doubles (+€25.00) · 2♥ → box 2")
        rounds = recall_rounds()
        rounds[-1]["result"] = "in_progress"
        backend.rounds = rounds
        await paris.locator("#recall-exit").click()
        now[0] += 1.0  # one recall a second per screen (the server's limit)
        await paris.locator("#recall-open").click()
        await expect(paris.locator("#recall-times")).to_have_text("since 11:32:25")


async def test_a_round_recalled_from_a_real_journal_reads_in_french_at_every_step(
    paris: Page, tmp_path: Path
) -> None:
    """The runtime's own recall (recall.py on a real journal), not hand-written steps: every step, its alarm
    (a card drawn for a bank that must stand) and its rule read in French."""
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_764_412_345.0)
        inputs: list[Input] = [
            ShoeShuffled(shoe_id="S-3"), *(CardDrawn(card=Card.parse(c)) for c in ("9C", "9D", "9H", "9S", "8C")),
            BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),)),
            *(CardDrawn(card=Card.parse(c)) for c in ("TS", "6D", "TC")), Next(),
            *(CardDrawn(card=Card.parse(c)) for c in ("TH", "2S")),
            CardDrawn(card=Card.parse("3H")),  # for a bank that stands on 18: held, with an alarm
        ]
        for item in inputs:
            controller.submit(item)
        [recalled] = recall_from_journal(journal, last=1)
    async with DisplayServer(ScriptedBackend(playing(), rounds=[recalled]), port=0) as server:
        await open_display(paris, server)
        await paris.locator("#recall-open").click()
        known = await catalogue_words(paris, "fr")
        seen: list[str] = []
        for index in range(len(recalled["steps"])):
            await expect(paris.locator("#recall-bar")).to_have_attribute("data-step", str(index))
            seen.append(await paris.locator("#recall-step-text").inner_text())
            strays = {word for text in await shown_texts(paris) for word in words(text, {"T1", "S-3"})
                      if word not in known}
            assert sorted(strays) == [], seen[-1]
            if index < len(recalled["steps"]) - 1:
                await paris.locator("#recall-next-step").click()
        assert any("→ case 1" in text for text in seen) and any("→ banque" in text for text in seen)
        banner = paris.locator("#alarms .alarm[data-kind='bank_must_stand']")
        await expect(banner.locator(".alarm-message")).to_have_text(
            "Carte 3♥ tirée pour la banque, qui ne tire plus (18) : la DÉFAUSSER")
        await expect(banner.locator(".alarm-rule")).to_have_text(
            "arrêté du 14 mai 2007, art. 55-4 (la banque à dix-sept ou plus ne tire plus ; un as compte onze dès "
            "qu’il donne dix-sept à vingt et un)")


def older(text: str) -> str:
    """`text` (a rule or a refusal's message as the code writes it today) as an older journal holds it: the display's
    own table of the older citations (static/old_citations.js) read backwards."""
    source = (STATIC / "old_citations.js").read_text(encoding="utf-8")
    rules = [(json.loads(a), json.loads(b)) for a, b in re.findall(r'^  \[(".*"),\n   (".*")\],$', source, re.M)]
    words = [(json.loads(a), json.loads(b)) for a, b in re.findall(r'^  \[(".*"), (".*")\],$', source, re.M)]
    for old, current in rules:
        if current == text:
            return str(old)
    for old, current in words:
        text = text.replace(current, old)
    return text


@pytest.mark.parametrize("journal", ["today", "older"])
async def test_a_refusal_reads_in_the_language_on_screen_with_the_tables_reason(
    page: Page, server: DisplayServer, backend: ScriptedBackend, journal: str
) -> None:
    """The round's reason for refusing DOUBLE, as the runtime words it, in the alarm (the toast: test_commands); an
    alarm an older version journaled, citing the rule and the house's text by lines of texts that do not ship, reads
    the same (docs/alarms.md "Rules in older journals")."""
    message = "DOUBLE refused: doubles only on 9, 10 or 11 under these rules (house option double_on); the hand has 17"
    rule = citations.DOUBLE
    if journal == "older":
        message, rule = older(message), older(rule)
        assert message != older(message.replace("(", "[")) and rule != citations.DOUBLE
    snapshot = playing(seq=6000)
    snapshot["alarms"] = [{"id": 31, "seq": 5999, "kind": "command_refused", "box": 3, "message": message,
                           "rule": rule, "amounts": {}, "acknowledged": False, "supervisor": False}]
    backend.current = snapshot
    await open_display(page, server)
    banner = page.locator("#alarms .alarm[data-alarm='31']")
    await expect(banner.locator(".alarm-message")).to_have_text(
        'DOUBLER refusé : double seulement sur 9, 10 ou 11 avec ces règles (option de la maison) ; la main a 17')
    await expect(banner.locator(".alarm-rule")).to_have_text(
        'arrêté du 14 mai 2007, art. 55-4 (« Double-down » : sur les deux premières cartes, une seule carte)')
    await page.locator("#lang-en").click()
    await expect(banner.locator(".alarm-message")).to_have_text(
        "DOUBLE refused: doubles only on 9, 10 or 11 under these rules (house option); the hand has 17")
    await expect(banner.locator(".alarm-rule")).to_have_text(
        "arrêté of 14 May 2007, art. 55-4 (double-down: on the first two cards, one card only)")
    await expect(banner.locator(".details")).to_have_count(0)  # the body says it all
