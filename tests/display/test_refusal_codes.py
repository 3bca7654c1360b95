"""A command the table refuses is worded on the page by its reason code (game/refusals.py RefusalReason), in the
language on screen: the code picks the words, the runtime's message only the facts of the moment it states.

The page talks to a real table controller on a real journal (the core decides the refusal and its code), through
the display server; the page is the real one in headless Chromium.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from table_runtime.game import citations
from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, ShoeShuffled
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.display.helpers import ControllerBackend, open_display, publish_and_wait
from tests.display.scripted import ScriptedBackend

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


@pytest.fixture
def classic_table(tmp_path: Path) -> Iterator[TableController]:
    """fr-classic (double on 9, 10, 11 only), two boxes dealt, box 1 to play on a hard 17."""
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-classic"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_764_412_345.0)
        controller.submit(ShoeShuffled(shoe_id="S-1"))
        for code in ("2C", "3C", "4C", "5D", "6D"):  # the burn cards
            controller.submit(CardDrawn(card=Card.parse(code)))
        controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),
                                           BoxBet(box=2, seated_cents=1000, owner="box2"))))
        for code in ("TS", "5C", "6S", "7D", "4H"):  # box 1, box 2, the bank, box 1, box 2
            controller.submit(CardDrawn(card=Card.parse(code)))
        yield controller


async def test_every_reason_code_of_the_table_is_worded_in_both_languages(
    page: Page, server: DisplayServer
) -> None:
    await open_display(page, server)
    keys: dict[str, list[str]] = await page.evaluate("() => window.DISPLAY_REFUSAL_KEYS")
    strings: dict[str, dict[str, str]] = await page.evaluate("() => window.DISPLAY_STRINGS")
    assert set(keys) == {str(reason) for reason in RefusalReason}
    for code, wordings in keys.items():
        for language in ("fr", "en"):
            assert all(key in strings[language] for key in wordings), (code, language)
            if "{" in strings[language][wordings[-1]]:  # names a fact: its plain words for a message without it
                assert f"{wordings[-1]}__plain" in strings[language], (code, language)


async def test_a_double_the_rules_refuse_reads_by_its_code_with_the_hands_total(
    page: Page, classic_table: TableController
) -> None:
    async with DisplayServer(ControllerBackend(classic_table), port=0) as server:
        await open_display(page, server)
        shown = copy.deepcopy(classic_table.snapshot())
        shown["allowed"] = [*shown["allowed"], "DOUBLE"]  # the page offers it; the table's rules do not
        await publish_and_wait(page, server, shown)
        await page.locator("#actions [data-command='DOUBLE']").click()
        await expect(page.locator("#toast")).to_have_text(
            "DOUBLER refusé : double seulement sur 9, 10 ou 11 avec ces règles (option de la maison) ; la main a 17")
        [alarm] = [alarm for alarm in classic_table.alarms.open_alarms if alarm.kind == "command_refused"]
        assert alarm.reason == RefusalReason.DOUBLE_9_10_11
        await publish_and_wait(page, server, {**classic_table.snapshot(), "seq": shown["seq"] + 1})
        banner = page.locator(f"#alarms .alarm[data-alarm='{alarm.id}']")
        await expect(banner.locator(".alarm-message")).to_have_text(
            "DOUBLER refusé : double seulement sur 9, 10 ou 11 avec ces règles (option de la maison) ; la main a 17")
        await page.locator("#lang-en").click()
        await expect(banner.locator(".alarm-message")).to_have_text(
            "DOUBLE refused: doubles only on 9, 10 or 11 under these rules (house option); the hand has 17")


async def test_the_code_gives_the_words_when_the_message_is_in_no_form_the_page_knows(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    """A command_refused alarm whose message states no fact in the runtime's fixed form (a newer runtime's
    wording): the code alone says why, in plain words, in each language."""
    await open_display(page, server)
    snapshot = copy.deepcopy(backend.snapshot())
    snapshot["seq"] += 1
    snapshot["alarms"] = [
        {"id": 41, "seq": 40, "kind": "command_refused", "box": 3, "rule": citations.SPLIT,
         "message": "SPLIT refused: KH QD differ in rank (split_match)", "amounts": {}, "acknowledged": False,
         "supervisor": False, "reason": "not_identical"},
        {"id": 42, "seq": 41, "kind": "command_refused", "box": None, "rule": "table check, docs/rules.md « A round »",
         "message": "VOID needs the supervisor", "amounts": {}, "acknowledged": False, "supervisor": False,
         "reason": "needs_supervisor"},
    ]
    await publish_and_wait(page, server, snapshot)
    split, void = page.locator("#alarms .alarm[data-alarm='41']"), page.locator("#alarms .alarm[data-alarm='42']")
    await expect(split.locator(".alarm-message")).to_have_text(
        'SÉPARER refusé : les deux cartes ne sont pas identiques (option de la maison : paires de même rang)')
    await expect(void.locator(".alarm-message")).to_have_text("Commande refusée : il faut le superviseur")
    await page.locator("#lang-en").click()
    await expect(split.locator(".alarm-message")).to_have_text(
        'SPLIT refused: the two cards are not identical (house option: pairs of the same rank)')
    await expect(void.locator(".alarm-message")).to_have_text("Command refused: it needs the supervisor")
