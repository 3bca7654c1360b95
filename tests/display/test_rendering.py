"""After scripted snapshots the page shows the right cards, totals, turn, bank, shoe, payouts and alarms."""

from __future__ import annotations

import copy

import pytest
from playwright.async_api import Browser, Page, expect

from table_runtime.display import DisplayServer
from table_runtime.game import citations
from tests.display.conftest import PIT_TOKEN, screenshot
from tests.display.helpers import box, open_display, publish_and_wait
from tests.display.scripted import ScriptedBackend, alarm, bank_hand, hand, playing, settlement, with_alarms
from tests.display.test_language import older

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


async def test_playing_round_shows_cards_soft_totals_turn_and_allowed_buttons(
    page: Page, server: DisplayServer
) -> None:
    await open_display(page, server)
    await expect(page.locator("body")).to_have_attribute("data-seq", "1234")

    third = box(page, 3)
    await expect(third).to_have_attribute("data-turn", "")
    await expect(third.locator(".card")).to_have_count(2)
    await expect(third.locator(".card").nth(0)).to_have_attribute("data-card", "AD")
    await expect(third.locator(".card").nth(1)).to_have_attribute("data-card", "6C")
    await expect(third.locator(".hand .total")).to_have_text("7/17")  # ace+6 is soft: 7 or 17
    await expect(third.locator(".stake.seated b")).to_have_text("10,00\u00a0€")
    await expect(third.locator(".stake.behind")).to_contain_text("b1")
    await expect(third.locator(".insurance")).to_contain_text("5,00\u00a0€")

    await expect(box(page, 1).locator(".hand .total")).to_have_text("17")
    await expect(box(page, 1)).not_to_have_attribute("data-turn", "")
    await expect(box(page, 5).locator(".hand")).to_have_count(2)
    await expect(box(page, 5).locator(".hand[data-hand='1'] .total")).to_have_text("18")
    await expect(box(page, 2)).to_have_attribute("data-empty", "")

    await expect(page.locator("#turn")).to_have_text("À jouer : case 3")
    await expect(page.locator("#next-card")).to_contain_text("case 3")
    await expect(page.locator("#bank-cards .card")).to_have_attribute("data-card", "AS")
    await expect(page.locator("#bank-total")).to_have_text("1/11")
    await expect(page.locator("#cards-left")).to_have_text("255")
    await expect(page.locator("#cut-card")).to_have_count(0)

    for name in ("NEXT", "DOUBLE", "UNDO", "VOID"):
        await expect(page.locator(f"#actions [data-command='{name}']")).to_be_enabled()
    for name in ("SPLIT", "CONFIRM"):
        await expect(page.locator(f"#actions [data-command='{name}']")).to_be_disabled()
    await screenshot(page, "playing-fr")


async def test_settlement_shows_payouts_per_box_bank_and_cut_card(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    await publish_and_wait(page, server, settlement())

    await expect(page.locator("#phase")).to_have_text("Paiement")
    await expect(page.locator("#bank-total")).to_have_text("17")
    await expect(page.locator("#bank-state")).to_have_text("Reste")
    await expect(page.locator("#bank-cards .card")).to_have_count(3)
    await expect(page.locator("#cut-card")).to_be_visible()
    await expect(page.locator("#cards-left")).to_have_text("70")

    third = box(page, 3)
    await expect(third.locator(".payout")).to_have_count(3)
    await expect(third.locator(".payout[data-outcome='win']").nth(0)).to_contain_text("+10,00\u00a0€")
    await expect(third.locator(".payout[data-outcome='win']").nth(1)).to_contain_text("b1")
    await expect(third.locator(".payout[data-outcome='insurance_lose']")).to_contain_text("−5,00\u00a0€")
    await expect(third.locator(".net b")).to_have_text("+10,00\u00a0€")
    await expect(box(page, 6).locator(".payout[data-outcome='blackjack']")).to_contain_text("+22,50\u00a0€")
    await expect(box(page, 6).locator(".hand .total")).to_have_text("BJ")
    await expect(box(page, 1).locator(".payout")).to_contain_text("égalité", ignore_case=True)
    await expect(box(page, 1).locator(".net b")).to_have_text("0,00\u00a0€")
    await expect(box(page, 2).locator(".net")).to_have_count(0)  # no stake, nothing to settle
    await expect(page.locator("#actions [data-command='CONFIRM']")).to_be_enabled()
    await expect(page.locator("#actions [data-command='NEXT']")).to_be_disabled()


async def test_bank_that_must_draw_is_marked(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    snapshot = playing(seq=1240)
    snapshot.update(phase="bank", turn=None, allowed=[], next_card="bank", bank=bank_hand(["AS", "5C"], 16, soft=True))
    snapshot["bank"]["must_draw"] = True
    await publish_and_wait(page, server, snapshot)
    await expect(page.locator("#bank-state")).to_have_text("Doit tirer")
    await expect(page.locator("#bank-total")).to_have_text("6/16")
    await expect(page.locator("#next-card")).to_contain_text("banque")
    await expect(page.locator("#turn")).to_have_text("—")
    await expect(page.locator("#boxes .box[data-turn]")).to_have_count(0)


async def test_alarm_banner_names_box_amounts_rule_and_dealer_acknowledges_it(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    await open_display(page, server)
    await expect(page.locator("#alarms")).to_be_hidden()
    wrong_payout = alarm(
        13,
        "wrong_payout",
        "Box 3 paid 10.00 € but 15.00 € is due",
        box_number=3,
        amounts={"expected_cents": 1500, "seen_cents": 1000},
    )
    alarmed = with_alarms(settlement(), wrong_payout)
    await publish_and_wait(page, server, alarmed)

    banner = page.locator("#alarms .alarm[data-alarm='13']")
    await expect(banner).to_be_visible()
    await expect(banner.locator(".alarm-kind")).to_have_text("Paiement erroné")
    await expect(banner.locator(".alarm-box")).to_have_text("case 3")
    await expect(banner).to_contain_text("15,00\u00a0€")
    await expect(banner).to_contain_text("10,00\u00a0€")
    await expect(banner.locator(".alarm-message")).to_have_text(
        "Dû 15,00\u00a0€, sur la zone 10,00\u00a0€ : payer ou ramasser la différence")
    await expect(banner.locator(".alarm-rule")).to_have_text(
        "contrôle de la table : chaque zone à son dû (perdante vide, gagnante mise + gain, égalité inchangée)")
    # An older journal's rule no table knows shows whom it cites, in words: never its file or a line number of a text.
    unknown = older(citations.BANK_DRAWS) + " and more"
    shown = await page.evaluate("async (rule) => (await import('/static/alarm.js')).ruleText(rule)", unknown)
    assert unknown != citations.BANK_DRAWS + " and more" and shown == (
        "Règle : arrêté du 14 mai 2007, art. 55-4 (règles du black-jack)")
    await screenshot(page, "settlement-alarm-fr")

    await banner.locator("button.ack").click()
    received = await backend.next_command()
    assert (received.name, received.args, received.role) == ("ACK_ALARM", {"id": 13}, "dealer")

    acknowledged = copy.deepcopy(alarmed)
    acknowledged["alarms"][0]["acknowledged"] = True
    acknowledged["seq"] += 1
    await publish_and_wait(page, server, acknowledged)
    await expect(page.locator("#alarms")).to_be_hidden()


async def test_recovered_notice_device_status_and_held_cards(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    await expect(page.locator("#recovered")).to_be_hidden()
    snapshot = playing(seq=1300)
    snapshot.update(recovered=True, held_cards=["QD"])
    snapshot["devices"]["chips"] = "offline"
    await publish_and_wait(page, server, snapshot)
    await expect(page.locator("#recovered")).to_be_visible()
    await expect(page.locator("#recovered")).to_contain_text("manche 17")
    await expect(page.locator("#devices [data-device='chips']")).to_have_attribute("data-status", "offline")
    await expect(page.locator("#devices [data-device='shoe']")).to_have_attribute("data-status", "online")
    await expect(page.locator("#held .card")).to_have_attribute("data-card", "QD")
    await expect(page.locator("#held [data-command='DISCARD']")).to_be_enabled()


async def test_insurance_window_and_a_snapshot_with_only_the_boxes_in_play(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    snapshot = playing(seq=1250)
    snapshot.update(phase="insurance", turn=None, allowed=["CONFIRM", "VOID"], next_card="none")
    third = snapshot["boxes"][2]
    third.update(insurance_cents=0, insurance_offered=True)
    # The runtime may list only the boxes in play; the page still shows all seven.
    snapshot["boxes"] = [b for b in snapshot["boxes"] if b["hands"]]
    assert [b["box"] for b in snapshot["boxes"]] == [1, 3, 5]
    await publish_and_wait(page, server, snapshot)
    await expect(page.locator("#phase")).to_have_text("Assurance")
    await expect(page.locator("#boxes .box")).to_have_count(7)
    await expect(box(page, 3).locator(".insurance.offered")).to_have_text("Assurance proposée")
    await expect(box(page, 1).locator(".insurance")).to_have_count(0)
    await expect(box(page, 4)).to_have_attribute("data-empty", "")
    await expect(page.locator("#actions [data-command='CONFIRM']")).to_be_enabled()


async def test_finished_soft_hand_shows_its_total_rounding_note_and_idle_device(
    page: Page, server: DisplayServer
) -> None:
    await open_display(page, server)
    snapshot = settlement(seq=1270)
    first = snapshot["boxes"][0]
    first["hands"][0].update(cards=["AH", "6S"], total=17, soft=True, status="stood")
    snapshot["boxes"][5]["payouts"][0].update(staked_cents=1005, net_cents=1507,
                                              note="3:2 of 1005 cents is 1507.5 cents: paid 1507")
    snapshot["devices"]["broker"] = "disabled"
    await publish_and_wait(page, server, snapshot)
    await expect(box(page, 1).locator(".hand .total")).to_have_text("17")  # stood: no more "7/17"
    await expect(box(page, 6).locator(".payout-note")).to_have_text("3:2 de 10,05\u00a0€, arrondi à 15,07\u00a0€")
    broker = page.locator("#devices [data-device='broker']")
    await expect(broker).to_have_class("device idle")
    await expect(broker).to_contain_text("désactivé")


async def test_crowded_boxes_keep_every_card_and_amount_inside_the_box(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    snapshot = playing(seq=1280)
    sixth = snapshot["boxes"][5]
    sixth.update(owner="seat6", seated_cents=123400)
    sixth["hands"] = [
        hand(["4H", "6C", "3H", "2S", "AD", "2C", "3C"], 21, 246800, status="doubled", doubled=True, from_split=True)
    ]
    seventh = snapshot["boxes"][6]
    seventh.update(owner="seat7", seated_cents=6000, behind=[{"owner": "a-long-behind-name", "cents": 7500}])
    seventh["hands"] = [hand(["4H", "6C", "3H"], 13, 27000, status="doubled", doubled=True)]
    await publish_and_wait(page, server, snapshot)
    await expect(box(page, 6).locator(".card")).to_have_count(7)
    overflowing = await page.evaluate(
        "() => [...document.querySelectorAll('#boxes .box')]"
        ".filter((b) => b.scrollWidth > b.clientWidth).map((b) => b.dataset.box)"
    )
    assert overflowing == []
    for card in await box(page, 6).locator(".card").all():
        await expect(card).to_be_in_viewport(ratio=1.0)
    await screenshot(page, "crowded-fr")


async def test_a_partial_snapshot_shows_what_it_has(page: Page, server: DisplayServer) -> None:
    await open_display(page, server)
    await publish_and_wait(page, server, {"seq": 5, "round": 0, "phase": "betting", "table_id": "T1"})
    await expect(page.locator("#boxes .box[data-empty]")).to_have_count(7)
    await expect(page.locator("#phase")).to_have_text("Mises")
    await expect(page.locator("#bank-total")).to_have_text("")
    await expect(page.locator("#actions [data-command='NEXT']")).to_be_disabled()


async def test_a_pit_tablet_sees_the_whole_table_without_scrolling(browser: Browser, server: DisplayServer) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        tablet = await context.new_page()
        await open_display(tablet, server, f"?pit={PIT_TOKEN}")
        await publish_and_wait(tablet, server, settlement())
        fits = await tablet.evaluate(
            "() => ({page: document.documentElement.scrollHeight <= innerHeight"
            " && document.documentElement.scrollWidth <= innerWidth,"
            " boxes: [...document.querySelectorAll('#boxes .box')].every((b) => b.scrollWidth <= b.clientWidth)})"
        )
        assert fits == {"page": True, "boxes": True}
        await expect(box(tablet, 3).locator(".net b")).to_be_in_viewport(ratio=1.0)
        await screenshot(tablet, "pit-tablet-1280")
    finally:
        await context.close()
