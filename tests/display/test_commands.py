"""Touch buttons reach the backend with the dealer's role; VOID needs the PIN; the pit cannot command.

Every refusal is checked on the server side too, through a plain WebSocket client,
since a page can be edited by whoever holds the tablet.
"""

from __future__ import annotations

import asyncio
import copy
import socket
from typing import Any

import aiohttp
import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from table_runtime.errors import ConfigError
from tests.display.conftest import PIT_TOKEN, SUPERVISOR_PIN, screenshot
from tests.display.helpers import ManualClock, ask, open_display, publish_and_wait
from tests.display.scripted import ScriptedBackend, playing, recalled_round

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


async def test_touch_next_reaches_backend_as_dealer(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    await open_display(page, server)
    await page.locator("#actions [data-command='NEXT']").click()
    received = await backend.next_command()
    assert (received.name, received.args, received.role) == ("NEXT", {}, "dealer")
    await expect(page.locator("#toast")).to_have_text("SUIVANT : ok")


async def test_refusal_from_the_table_is_shown_to_the_dealer(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    await open_display(page, server)
    # The page believes SPLIT is allowed; the table (backend) does not, and says why.
    shown = copy.deepcopy(playing(seq=1235))
    shown["allowed"].append("SPLIT")
    await publish_and_wait(page, server, shown)
    await page.locator("#actions [data-command='SPLIT']").click()
    assert (await backend.next_command()).name == "SPLIT"
    await expect(page.locator("#toast")).to_have_text("SÉPARER refusé : la manche est en phase Jeu")
    await expect(page.locator("#toast")).to_have_attribute("data-ok", "no")


async def test_manual_entry_of_an_unreadable_card(page: Page, server: DisplayServer, backend: ScriptedBackend) -> None:
    await open_display(page, server)
    await page.locator("#actions [data-command='MANUAL_CARD']").click()
    dialog = page.locator("#manual-dialog")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("#manual-send")).to_be_disabled()
    await dialog.locator("[data-rank='Q']").click()
    await dialog.locator("[data-suit='S']").click()
    await expect(dialog.locator("#manual-preview .card")).to_have_attribute("data-card", "QS")
    await screenshot(page, "manual-card-fr")
    await dialog.locator("#manual-send").click()
    received = await backend.next_command()
    assert (received.name, received.args, received.role) == ("MANUAL_CARD", {"card": "QS"}, "dealer")
    await expect(dialog).to_be_hidden()


async def test_void_needs_the_supervisor_pin(page: Page, server: DisplayServer, backend: ScriptedBackend) -> None:
    await open_display(page, server)
    await page.locator("#actions [data-command='VOID']").click()
    dialog = page.locator("#pin-dialog")
    for key in "1357":
        await dialog.locator(f"[data-key='{key}']").click()
    await dialog.locator("#pin-send").click()
    await expect(dialog.locator("#pin-error")).to_have_text("ANNULER MANCHE refusé : code superviseur faux")
    await expect(dialog).to_be_visible()
    assert backend.commands == []  # a wrong PIN never reaches the table

    for key in SUPERVISOR_PIN:
        await dialog.locator(f"[data-key='{key}']").click()
    await expect(dialog.locator("#pin-dots")).to_have_attribute("data-length", "4")
    await dialog.locator("#pin-send").click()
    received = await backend.next_command()
    assert (received.name, received.role) == ("VOID", "supervisor")
    await expect(dialog).to_be_hidden()


async def test_server_refuses_bad_commands_before_the_backend(
    server: DisplayServer, backend: ScriptedBackend, http: aiohttp.ClientSession
) -> None:
    async with http.ws_connect(f"{server.url}ws") as ws:
        hello = await ws.receive_json(timeout=5)
        assert hello == {"type": "hello", "role": "dealer", "language": "fr", "supervisor": True,
                         "verification": False, "keepalive_s": 5.0}
        snapshot = await ws.receive_json(timeout=5)
        assert snapshot["type"] == "snapshot" and snapshot["snapshot"]["seq"] == 1234

        refused: list[tuple[str, dict[str, Any]]] = [
            ("wrong supervisor PIN", {"type": "command", "name": "VOID", "pin": "0000"}),
            ("wrong supervisor PIN", {"type": "command", "name": "VOID"}),
            ("not a card", {"type": "command", "name": "MANUAL_CARD", "args": {"card": "ZZ"}}),
            ("ACK_ALARM needs the alarm id", {"type": "command", "name": "ACK_ALARM", "args": {"id": "12"}}),
            ("unknown command 'LATE_SURRENDER'", {"type": "command", "name": "LATE_SURRENDER"}),
        ]
        for expected, message in refused:
            reply = await ask(ws, message)
            assert reply["type"] == "result" and reply["ok"] is False
            assert expected in reply["message"]
        assert backend.commands == []

        reply = await ask(ws, {"type": "command", "name": "MANUAL_CARD", "args": {"card": "10h"}})
        assert reply["ok"] is True
        assert backend.commands[-1].args == {"card": "TH"}  # normalised before it reaches the table


async def test_pit_view_is_read_only(
    page: Page, server: DisplayServer, backend: ScriptedBackend, http: aiohttp.ClientSession
) -> None:
    await open_display(page, server, f"?pit={PIT_TOKEN}")
    await expect(page.locator("body")).to_have_attribute("data-role", "pit")
    await expect(page.locator("#pit-banner")).to_be_visible()
    await expect(page.locator("#actions [data-command='NEXT']")).to_be_hidden()
    await expect(page.locator("#allowed")).to_have_text(
        "Actions possibles : SUIVANT · DOUBLER · ANNULER CARTE · ANNULER MANCHE"
    )
    await expect(page.locator("#boxes .box[data-box='3'] .hand .total")).to_have_text("7/17")
    await screenshot(page, "pit-view-fr")

    async with http.ws_connect(f"{server.url}ws?pit={PIT_TOKEN}") as ws:
        hello = await ws.receive_json(timeout=5)
        assert hello["role"] == "pit" and hello["supervisor"] is False
        for name in ("NEXT", "CONFIRM", "ACK_ALARM"):
            reply = await ask(ws, {"type": "command", "name": name, "args": {"id": 12}})
            assert reply["ok"] is False and reply["message"] == "pit view is read-only"
        reply = await ask(ws, {"type": "command", "name": "VOID", "pin": SUPERVISOR_PIN})
        assert reply["ok"] is False
        recall = await ask(ws, {"type": "recall", "last": 10})
        assert recall["type"] == "recall"
    assert backend.commands == []


async def test_wrong_token_or_foreign_origin_is_forbidden(server: DisplayServer, http: aiohttp.ClientSession) -> None:
    for path in ("?pit=wrong-token", "ws?pit=wrong-token", "api/snapshot?pit=nope"):
        async with http.get(server.url + path) as response:
            assert response.status == 403, path
    async with http.get(server.url + "ws", headers={"Origin": "http://elsewhere.example"}) as response:
        assert response.status == 403
    async with http.get(server.url + "api/snapshot") as response:
        assert response.status == 200
        assert (await response.json())["seq"] == 1234
    async with http.get(server.url) as response:
        assert response.status == 200
        assert "default-src 'none'" in response.headers["Content-Security-Policy"]


async def test_without_a_pin_void_is_off(page: Page, backend: ScriptedBackend, http: aiohttp.ClientSession) -> None:
    async with DisplayServer(backend, port=0) as server:
        await open_display(page, server)
        await expect(page.locator("#actions [data-command='NEXT']")).to_be_enabled()
        await expect(page.locator("#actions [data-command='VOID']")).to_be_disabled()
        async with http.ws_connect(f"{server.url}ws") as ws:
            reply = await ask(ws, {"type": "command", "name": "VOID", "pin": "1234"})
            assert reply["message"] == "no supervisor PIN is configured on this table"
    assert backend.commands == []


async def test_bad_configuration_names_the_key(backend: ScriptedBackend) -> None:
    with pytest.raises(ConfigError, match=r"display\.language"):
        DisplayServer(backend, language="de")
    with pytest.raises(ConfigError, match=r"display\.supervisor_pin"):
        DisplayServer(backend, supervisor_pin="12")
    with pytest.raises(ConfigError, match=r"display\.pit_token"):
        DisplayServer(backend, pit_token="short")


def _outward_address() -> str | None:
    """This machine's address on its first non-loopback interface, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the route
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


async def test_from_another_machine_only_the_pit_token_opens_the_display(
    backend: ScriptedBackend, http: aiohttp.ClientSession
) -> None:
    address = _outward_address()
    if address is None:
        pytest.skip("no non-loopback interface to connect from")
    async with DisplayServer(backend, host="0.0.0.0", port=0, pit_token=PIT_TOKEN, allowed_hosts=[address]) as server:
        base = f"http://{address}:{server.port}/"
        for path in ("", "ws", "api/snapshot", "api/recall"):
            async with http.get(base + path) as response:
                assert response.status == 403, path
        async with http.get(f"{base}api/snapshot?pit={PIT_TOKEN}") as response:
            assert response.status == 200
        async with http.ws_connect(f"{base}ws?pit={PIT_TOKEN}") as ws:
            assert (await ws.receive_json(timeout=5))["role"] == "pit"


async def test_a_double_tap_sends_one_command(page: Page, server: DisplayServer, backend: ScriptedBackend) -> None:
    await open_display(page, server)
    backend.gate = asyncio.Event()  # the table takes its time to answer
    await page.locator("#actions [data-command='NEXT']").dblclick()
    assert (await backend.next_command()).name == "NEXT"
    await expect(page.locator("#actions [data-command='NEXT']")).to_be_disabled()  # until the table answers
    await expect(page.locator("body")).to_have_attribute("data-busy", "yes")
    backend.gate.set()
    await expect(page.locator("#toast")).to_have_text("SUIVANT : ok")
    await expect(page.locator("#actions [data-command='NEXT']")).to_be_enabled()
    # A marker command: had the second tap been sent, it would reach the table before this.
    await page.locator("#actions [data-command='MANUAL_CARD']").click()
    await page.locator("#manual-dialog [data-rank='A']").click()
    await page.locator("#manual-dialog [data-suit='H']").click()
    await page.locator("#manual-send").click()
    assert (await backend.next_command()).name == "MANUAL_CARD"
    assert [c.name for c in backend.commands] == ["NEXT", "MANUAL_CARD"]


class BrokenBackend(ScriptedBackend):
    """A backend with a bug: every command and every recall raises."""

    async def command(self, name: str, args: dict[str, Any], *, role: str) -> dict[str, Any]:
        await super().command(name, args, role=role)
        raise RuntimeError("bug in the runtime")

    def recall(self, last: int) -> list[dict[str, Any]]:
        raise RuntimeError("journal unreadable")


async def test_a_failing_backend_answers_the_page_and_keeps_it_connected(
    page: Page, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    broken = BrokenBackend(playing())
    async with DisplayServer(broken, port=0) as server:
        await open_display(page, server)
        await page.locator("#actions [data-command='NEXT']").click()
        await expect(page.locator("#toast")).to_have_text("SUIVANT refusé : la table n’a pas pu l’appliquer")
        await expect(page.locator("body")).to_have_attribute("data-connection", "connected")
        async with http.ws_connect(f"{server.url}ws") as ws:
            reply = await ask(ws, {"type": "recall", "last": 10})
            assert reply["rounds"] == [] and "journal unreadable" in reply["message"]
    assert [c.name for c in broken.commands] == ["NEXT"]
    assert "the backend failed on NEXT" in caplog.text


async def test_recall_is_one_request_a_second_per_screen(backend: ScriptedBackend, http: aiohttp.ClientSession) -> None:
    backend.rounds = [recalled_round(16, 1100)]
    clock = ManualClock()
    async with DisplayServer(backend, port=0, pit_token=PIT_TOKEN, clock=clock) as server:
        async with http.ws_connect(f"{server.url}ws?pit={PIT_TOKEN}") as ws:
            assert len((await ask(ws, {"type": "recall", "last": 10}))["rounds"]) == 1
            again = await ask(ws, {"type": "recall", "last": 10})
            assert again["rounds"] == [] and again["message"] == "recall: one request a second on this screen"
            assert again["reason"] == "recall_busy"
            clock.now += 1.0
            assert len((await ask(ws, {"type": "recall", "last": 10}))["rounds"]) == 1
        clock.now += 1.0
        recall_url = f"{server.url}api/recall?last=5&pit={PIT_TOKEN}"
        async with http.get(recall_url) as response:
            assert response.status == 200 and len(await response.json()) == 1
        async with http.get(recall_url) as response:
            assert response.status == 429
