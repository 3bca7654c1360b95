"""The program's check from the supervisor's display, in Chromium, on the real app and its program watch
(runtime/program_watch.py): the Programme / Program button asks for a seed and the PIN and shows the answer the
table journaled; a program not as released shows why play is stopped in the banner, naming the file, in French
and English."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.release.manifest import Manifest, manifest_dir, seeded_digest
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.program_watch import ProgramWatch
from tests.display.conftest import SUPERVISOR_PIN, screenshot
from tests.display.helpers import open_display
from tests.release.installation import SETTLEMENT, change_one_byte, signed_installation

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]


async def ask_with_pin(page: Page, seed: str) -> None:
    await page.locator("#verify-open").click()
    await page.locator("#verify-seed").fill(seed)
    await page.locator("#verify-send").click()
    dialog = page.locator("#pin-dialog")
    for key in SUPERVISOR_PIN:
        await dialog.locator(f"[data-key='{key}']").click()
    await dialog.locator("#pin-send").click()
    await expect(dialog).to_be_hidden(timeout=30_000)


async def test_the_supervisor_checks_the_program_and_the_banner_says_why_play_stopped(
        tmp_path: Path, page: Page) -> None:
    prefix, key = signed_installation(tmp_path)
    with Journal.open(journal_path(tmp_path / "data")) as journal:
        ticks = itertools.count()
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_700_000_000.0 + next(ticks))
        watch = ProgramWatch(controller, public_key=key, prefix=prefix)
        async with DisplayServer(TableApp(controller, program_watch=watch), port=0, supervisor_pin=SUPERVISOR_PIN,
                                 verifier=watch) as server:
            await open_display(page, server)
            await page.locator("#lang-fr").click()
            await ask_with_pin(page, "c0ffee")
            result = page.locator("#verify-result")
            manifest = Manifest.parse((manifest_dir(prefix) / "manifest.sha256").read_bytes())
            await expect(result.locator(".verify-intact")).to_contain_text(
                f"Programme conforme à la version : 4 fichiers, empreinte du manifeste {manifest.digest}")
            answer = seeded_digest(prefix, manifest, bytes.fromhex("c0ffee"))
            await expect(result.locator(".verify-hmac")).to_have_text(f"Réponse à la graine c0ffee : {answer}")
            await screenshot(page, "program-verified-fr")
            await page.locator("#verify-close").click()

            change_one_byte(prefix / SETTLEMENT)
            await ask_with_pin(page, "")
            await expect(result.locator(".verify-not-intact")).to_contain_text(
                f"Programme non conforme : 1 fichier(s), dont {SETTLEMENT}")
            await page.locator("#verify-close").click()
            await server.publish(controller.snapshot())
            banner = page.locator("#alarms .alarm[data-kind='program_not_as_released']")
            await expect(banner).to_contain_text("Programme modifié : jeu arrêté")
            await expect(banner).to_contain_text(
                f"Le programme installé n’est pas la version certifiée (fichier {SETTLEMENT}) : 1 modifié(s)")
            await screenshot(page, "program-not-as-released-fr")
            await page.locator("#lang-en").click()
            await expect(banner).to_contain_text(
                f"The installed program is not the certified release (file {SETTLEMENT}): 1 changed, 0 missing")
        assert [entry.body["by"] for entry in journal.entries() if entry.kind == "verification"] == [
            "supervisor", "supervisor"]
