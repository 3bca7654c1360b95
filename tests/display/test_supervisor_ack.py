"""An alarm that needs the supervisor: the banner labels it, and its ACKNOWLEDGE asks for the PIN (the VOID dialog)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from tests.display.conftest import SUPERVISOR_PIN, screenshot
from tests.display.helpers import open_display, publish_and_wait
from tests.display.scripted import ScriptedBackend, alarm, playing, with_alarms

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


def _banner() -> dict[str, object]:
    past_posting = alarm(21, "past_posting", "Box 3: 5.00 € added outside a window", box_number=3,
                         amounts={"expected_cents": 1000, "seen_cents": 1500}, supervisor=True)
    bank_must_stand = alarm(22, "bank_must_stand", "The bank stands on 18", box_number=None,
                            amounts={"bank_total": 18})
    return with_alarms(playing(), past_posting, bank_must_stand)


async def test_a_supervisor_alarm_is_labelled_and_its_acknowledge_sends_the_pin(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    await open_display(page, server)
    await publish_and_wait(page, server, _banner())
    serious = page.locator("#alarms .alarm[data-alarm='21']")
    plain = page.locator("#alarms .alarm[data-alarm='22']")
    await expect(serious.locator(".alarm-supervisor")).to_have_text("Superviseur requis")
    await expect(plain.locator(".alarm-supervisor")).to_have_count(0)
    await screenshot(page, "supervisor-alarm-fr")

    await serious.locator("button.ack").click()
    dialog = page.locator("#pin-dialog")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("h2")).to_have_text("Acquitter l’alarme — code superviseur")
    await expect(dialog.locator("#pin-send")).to_have_text("Acquitter l’alarme")
    for key in "1357":
        await dialog.locator(f"[data-key='{key}']").click()
    await dialog.locator("#pin-send").click()
    await expect(dialog.locator("#pin-error")).to_have_text("ACQUITTER refusé : code superviseur faux")
    assert backend.commands == []  # a wrong PIN never reaches the table

    for key in SUPERVISOR_PIN:
        await dialog.locator(f"[data-key='{key}']").click()
    await dialog.locator("#pin-send").click()
    received = await backend.next_command()
    assert (received.name, received.args, received.role) == ("ACK_ALARM", {"id": 21}, "supervisor")
    await expect(dialog).to_be_hidden()

    # The dealer's own alarm is acknowledged at once, without the PIN.
    await plain.locator("button.ack").click()
    received = await backend.next_command()
    assert (received.name, received.args, received.role) == ("ACK_ALARM", {"id": 22}, "dealer")
    await expect(dialog).to_be_hidden()


async def test_the_label_in_english_and_void_keeps_its_own_dialog_text(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    await open_display(page, server, "?lang=en")
    await publish_and_wait(page, server, _banner())
    serious = page.locator("#alarms .alarm[data-alarm='21']")
    await expect(serious.locator(".alarm-supervisor")).to_have_text("Supervisor needed")
    await serious.locator("button.ack").click()
    dialog = page.locator("#pin-dialog")
    await expect(dialog.locator("h2")).to_have_text("Acknowledge the alarm — supervisor PIN")
    await dialog.locator("#pin-cancel").click()
    await expect(dialog).to_be_hidden()

    # The same dialog, opened by VOID afterwards, is the VOID dialog again and sends VOID.
    await page.locator("#actions [data-command='VOID']").click()
    await expect(dialog.locator("h2")).to_have_text("Void the round — supervisor PIN")
    await expect(dialog.locator("#pin-send")).to_have_text("Void the round")
    for key in SUPERVISOR_PIN:
        await dialog.locator(f"[data-key='{key}']").click()
    await dialog.locator("#pin-send").click()
    received = await backend.next_command()
    assert (received.name, received.role) == ("VOID", "supervisor")
    assert [command.name for command in backend.commands] == ["VOID"]
