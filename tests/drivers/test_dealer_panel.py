"""The dealer panel on gpiozero's mock pins: buttons reach the loop, debounce, the VOID chord, lamps, tower, buzzer."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.dealer_panel import (
    BUTTONS,
    ButtonLogic,
    BuzzerPattern,
    DealerPanel,
    GpioDealerPanel,
    PanelCommand,
    PanelDeviceError,
    PanelUsageError,
    Tower,
    pin_factory_for,
)
from table_runtime import config
from table_runtime.config import PanelPins

C = PanelCommand
PINS = PanelPins(
    deal=5, next=6, double=13, split=19, undo=26, confirm=21,
    box_lamps=(17, 27, 22, 23, 24, 25, 12),
    tower_green=16, tower_amber=20, tower_red=4, buzzer=18,
    debounce_seconds=0.05, void_hold_seconds=0.3,
)


# -- the pure button logic, on exact times ------------------------------------


def test_action_buttons_act_on_press_only() -> None:
    logic = ButtonLogic(0.05, 3.0)
    assert logic.edge("DEAL", True, 0.0) == [C.DEAL]
    assert logic.edge("DEAL", False, 0.2) == []
    assert logic.edge("SPLIT", True, 0.3) == [C.SPLIT]


def test_bounces_inside_the_window_are_one_press() -> None:
    logic = ButtonLogic(0.05, 3.0)
    assert logic.edge("NEXT", True, 0.000) == [C.NEXT]
    assert logic.edge("NEXT", False, 0.002) == []
    assert logic.edge("NEXT", True, 0.004) == []
    assert logic.deadline == pytest.approx(0.05)
    assert logic.settle(0.05, {"NEXT": True}) == []  # still held: no second press
    assert logic.deadline is None
    assert logic.edge("NEXT", False, 0.200) == []
    assert logic.edge("NEXT", True, 0.201) == []  # release bounce
    assert logic.settle(0.25, {"NEXT": False}) == []
    assert not logic.is_pressed("NEXT")
    assert logic.edge("NEXT", True, 0.5) == [C.NEXT]


def test_a_release_lost_in_the_window_is_read_back() -> None:
    logic = ButtonLogic(0.05, 3.0)
    assert logic.edge("DOUBLE", True, 0.0) == [C.DOUBLE]
    assert logic.edge("DOUBLE", False, 0.01) == []  # a quick tap, released inside the window
    assert logic.is_pressed("DOUBLE")
    assert logic.settle(0.05, {"DOUBLE": False}) == []
    assert not logic.is_pressed("DOUBLE")
    assert logic.edge("DOUBLE", True, 0.1) == [C.DOUBLE]  # so the next tap counts


def test_a_press_seen_only_when_the_window_ends_counts() -> None:
    logic = ButtonLogic(0.05, 3.0)
    logic.edge("DEAL", True, 0.0)
    logic.edge("DEAL", False, 0.3)
    assert logic.edge("DEAL", True, 0.32) == []  # inside the release's window
    assert logic.settle(0.35, {"DEAL": True}) == [C.DEAL]


@pytest.mark.parametrize("button", ["CONFIRM", "UNDO"])
def test_confirm_and_undo_act_on_release(button: str) -> None:
    logic = ButtonLogic(0.05, 3.0)
    assert logic.edge(button, True, 0.0) == []
    assert logic.settle(10.0, {button: True}) == []  # held alone: never VOID
    assert logic.edge(button, False, 10.0) == [C(button)]


def test_void_needs_both_held_for_the_hold_time_and_gives_nothing_else() -> None:
    logic = ButtonLogic(0.05, 3.0)
    assert logic.edge("CONFIRM", True, 0.0) == []
    assert logic.edge("UNDO", True, 0.5) == []
    assert logic.deadline == pytest.approx(3.5)
    assert logic.settle(3.49, {}) == []
    assert logic.settle(3.5, {}) == [C.VOID]
    assert logic.deadline is None
    assert logic.settle(9.0, {}) == []  # once per chord
    assert logic.edge("UNDO", False, 9.1) == []
    assert logic.edge("CONFIRM", False, 9.2) == []
    assert logic.edge("CONFIRM", True, 10.0) == []
    assert logic.edge("CONFIRM", False, 10.2) == [C.CONFIRM]


def test_a_chord_let_go_early_gives_nothing() -> None:
    logic = ButtonLogic(0.05, 3.0)
    logic.edge("UNDO", True, 0.0)
    logic.edge("CONFIRM", True, 0.1)
    assert logic.edge("CONFIRM", False, 2.9) == []
    assert logic.deadline is None
    assert logic.settle(5.0, {"UNDO": True}) == []
    assert logic.edge("UNDO", False, 5.0) == []


def test_the_panel_knows_the_buttons_the_configuration_names() -> None:
    """The driver is given its buttons by name; the names are the configuration's and each gives its command."""
    assert BUTTONS == config.BUTTONS
    assert set(PINS.buttons) == set(BUTTONS) - {"SURRENDER"}  # SURRENDER is optional: this panel has none
    assert set(dataclasses.replace(PINS, surrender=14).buttons) == set(BUTTONS)
    assert {PanelCommand(name) for name in BUTTONS} == set(PanelCommand) - {PanelCommand.VOID}


def test_a_button_the_panel_has_not_is_refused() -> None:
    with pytest.raises(PanelUsageError, match="'HIT'"):
        ButtonLogic(0.05, 3.0, ("DEAL", "HIT"))


def test_a_panel_without_undo_still_confirms() -> None:
    logic = ButtonLogic(0.05, 3.0, ("DEAL", "CONFIRM"))
    assert logic.edge("CONFIRM", True, 0.0) == []
    assert logic.edge("CONFIRM", False, 0.2) == [C.CONFIRM]


# -- the gpiozero panel on mock pins -------------------------------------------


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory(pin_class=MockPWMPin)


@pytest.fixture
async def panel(factory: MockFactory) -> AsyncIterator[GpioDealerPanel]:
    pattern = BuzzerPattern(on_seconds=0.02, off_seconds=0.02, count=3)
    async with GpioDealerPanel(PINS, pin_factory=factory, buzzer_pattern=pattern) as opened:
        yield opened


async def next_command(commands: AsyncIterator[PanelCommand]) -> PanelCommand:
    async with asyncio.timeout(5):
        return await anext(commands)


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()  # buttons pull up; pressed closes to ground


def release(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_high()


@pytest.mark.timeout(30)
async def test_each_button_reaches_the_loop(panel: GpioDealerPanel, factory: MockFactory) -> None:
    assert isinstance(panel, DealerPanel)
    commands = panel.commands()
    for name, pin in PINS.buttons.items():
        press(factory, pin)
        release(factory, pin)
        assert await next_command(commands) == C(name)


@pytest.mark.timeout(30)
async def test_a_surrender_button_where_one_is_wired_acts_on_press(factory: MockFactory) -> None:
    """SURRENDER (55-4 1° as amended in 2020) is an optional button: wired, it gives its command when pressed."""
    pins = dataclasses.replace(PINS, surrender=14)
    async with GpioDealerPanel(pins, pin_factory=factory) as opened:
        commands = opened.commands()
        press(factory, 14)
        assert await next_command(commands) == C.SURRENDER
        release(factory, 14)
    assert "SURRENDER" not in PINS.buttons


@pytest.mark.timeout(30)
async def test_edges_from_another_thread_reach_the_loop(panel: GpioDealerPanel, factory: MockFactory) -> None:
    commands = panel.commands()
    await asyncio.to_thread(press, factory, PINS.split)
    assert await next_command(commands) == C.SPLIT


@pytest.mark.timeout(30)
async def test_a_bouncing_button_is_one_command(panel: GpioDealerPanel, factory: MockFactory) -> None:
    commands = panel.commands()
    for _ in range(5):  # contact chatter, well inside 50 ms
        press(factory, PINS.next)
        release(factory, PINS.next)
    press(factory, PINS.next)
    assert await next_command(commands) == C.NEXT
    await asyncio.sleep(PINS.debounce_seconds * 2)
    press(factory, PINS.double)
    assert await next_command(commands) == C.DOUBLE  # not a second NEXT


@pytest.mark.timeout(30)
async def test_is_pressed_is_the_level_the_panel_has_taken_not_the_pin(panel: GpioDealerPanel,
                                                                       factory: MockFactory) -> None:
    commands = panel.commands()
    press(factory, PINS.next)
    assert not panel.is_pressed("NEXT")  # the pin is down; its edge is still on its way to the loop
    assert await next_command(commands) == C.NEXT
    assert panel.is_pressed("NEXT")
    release(factory, PINS.next)
    async with asyncio.timeout(5):  # at once, or when the debounce window of the press ends
        await panel.wait_for_release("NEXT")
    assert not panel.is_pressed("NEXT")
    press(factory, PINS.next)  # pressed again as soon as the panel took the release: a second NEXT
    async with asyncio.timeout(5):
        await panel.wait_for_press("NEXT")
    assert await next_command(commands) == C.NEXT


@pytest.mark.timeout(30)
async def test_void_comes_after_the_hold_and_alone(panel: GpioDealerPanel, factory: MockFactory) -> None:
    commands = panel.commands()
    start = time.monotonic()
    press(factory, PINS.confirm)
    press(factory, PINS.undo)
    assert await next_command(commands) == C.VOID
    assert time.monotonic() - start >= PINS.void_hold_seconds
    release(factory, PINS.undo)
    release(factory, PINS.confirm)
    press(factory, PINS.deal)
    assert await next_command(commands) == C.DEAL  # the chord gave neither UNDO nor CONFIRM


@pytest.mark.timeout(30)
async def test_a_short_chord_is_no_void(panel: GpioDealerPanel, factory: MockFactory) -> None:
    commands = panel.commands()
    press(factory, PINS.confirm)
    press(factory, PINS.undo)
    await asyncio.sleep(PINS.void_hold_seconds / 3)
    release(factory, PINS.confirm)
    release(factory, PINS.undo)
    await asyncio.sleep(PINS.void_hold_seconds * 1.5)  # past the hold time: a VOID would be queued by now
    press(factory, PINS.deal)
    assert await next_command(commands) == C.DEAL


async def test_lamp_shows_whose_turn(panel: GpioDealerPanel, factory: MockFactory) -> None:
    panel.show_turn(3)
    assert [factory.pin(pin).state for pin in PINS.box_lamps] == [0, 0, 1, 0, 0, 0, 0]
    panel.show_turn(7)
    assert [factory.pin(pin).state for pin in PINS.box_lamps] == [0, 0, 0, 0, 0, 0, 1]
    assert panel.turn == 7
    panel.show_turn(None)
    assert not any(factory.pin(pin).state for pin in PINS.box_lamps)
    for bad in (0, 8, True):
        with pytest.raises(PanelUsageError):
            panel.show_turn(bad)


@pytest.mark.timeout(30)
async def test_tower_and_alarm_buzzer(panel: GpioDealerPanel, factory: MockFactory) -> None:
    def tower() -> tuple[int, int, int]:
        return factory.pin(PINS.tower_green).state, factory.pin(PINS.tower_amber).state, factory.pin(
            PINS.tower_red).state

    assert tower() == (0, 0, 0)
    panel.set_tower(Tower.PLAY)
    assert tower() == (1, 0, 0)
    panel.set_tower(Tower.WAITING)
    assert tower() == (0, 1, 0)
    buzzer = factory.pin(PINS.buzzer)
    buzzer.clear_states()
    panel.alarm_on()
    assert tower() == (0, 0, 1) and panel.alarm and panel.tower is Tower.ALARM
    panel.set_tower(Tower.PLAY)  # remembered, but red stays while the alarm is on
    assert tower() == (0, 0, 1)
    async with asyncio.timeout(5):
        while len(buzzer.states) < 7:
            await asyncio.sleep(0.01)
    buzzer.assert_states([False, True, False, True, False, True, False])  # three short beeps
    panel.alarm_off()
    assert tower() == (1, 0, 0) and not panel.alarm and buzzer.state == 0


@pytest.mark.timeout(30)
async def test_closing_ends_commands_and_frees_the_pins(factory: MockFactory) -> None:
    async with GpioDealerPanel(PINS, pin_factory=factory) as panel:
        panel.show_turn(1)
        panel.set_tower(Tower.PLAY)
        commands = panel.commands()
        press(factory, PINS.deal)
    async with asyncio.timeout(5):
        assert [command async for command in commands] == [C.DEAL]
    async with GpioDealerPanel(PINS, pin_factory=factory):  # the pins were released
        pass


async def test_pins_already_taken_are_a_device_error(panel: GpioDealerPanel, factory: MockFactory) -> None:
    with pytest.raises(PanelDeviceError):
        async with GpioDealerPanel(PINS, pin_factory=factory):
            pass


def test_pin_factory_names() -> None:
    assert pin_factory_for(None) is None
    assert isinstance(pin_factory_for("mock"), MockFactory)
    with pytest.raises(PanelUsageError):
        pin_factory_for("gpio")


# -- properties of the button logic over arbitrary edge sequences ---------------

EDGES = st.lists(st.tuples(st.sampled_from(["DEAL", "NEXT", "CONFIRM", "UNDO"]),
                           st.floats(min_value=0.0, max_value=0.2)), max_size=60)


def run_edges(edges: list[tuple[str, float]], debounce: float, hold: float) -> tuple[ButtonLogic, list[PanelCommand],
                                                                                      dict[str, bool], int]:
    """Toggle buttons physically at the given gaps, firing `settle` at each deadline like the loop's timer."""
    logic = ButtonLogic(debounce, hold)
    level = {name: False for name in ("DEAL", "NEXT", "DOUBLE", "SPLIT", "UNDO", "CONFIRM")}
    commands: list[PanelCommand] = []
    now, deal_presses = 0.0, 0

    def settle_until(until: float) -> None:
        while (deadline := logic.deadline) is not None and deadline <= until:
            commands.extend(logic.settle(deadline, level))

    for button, gap in edges:
        settle_until(now + gap)
        now += gap
        level[button] = not level[button]
        deal_presses += button == "DEAL" and level[button]
        commands.extend(logic.edge(button, level[button], now))
    settle_until(now + hold + debounce + 1.0)
    return logic, commands, level, deal_presses


@settings(max_examples=300, deadline=None)
@given(edges=EDGES)
def test_no_button_stays_stuck_and_no_press_counts_twice(edges: list[tuple[str, float]]) -> None:
    logic, commands, level, deal_presses = run_edges(edges, 0.05, 0.3)
    assert {name: logic.is_pressed(name) for name in level} == level
    assert commands.count(C.DEAL) <= deal_presses


@settings(max_examples=300, deadline=None)
@given(edges=EDGES)
def test_void_exactly_when_the_chord_was_really_held(edges: list[tuple[str, float]]) -> None:
    debounce, hold = 0.05, 0.3
    _, commands, _, _ = run_edges(edges, debounce, hold)
    down = {"CONFIRM": False, "UNDO": False}
    chord_edges: list[tuple[float, bool]] = []  # (time of a CONFIRM/UNDO edge, both down after it)
    now = 0.0
    for button, gap in edges:
        now += gap
        if button in down:
            down[button] = not down[button]
            chord_edges.append((now, all(down.values())))
    ends = [later for later, _ in chord_edges[1:]] + [now + hold + debounce + 1.0][: len(chord_edges)]  # settles
    ever_both = any(both for _, both in chord_edges)
    held_long = any(both and end - start >= hold + 2 * debounce
                    for (start, both), end in zip(chord_edges, ends, strict=True))
    if not ever_both:
        assert C.VOID not in commands
    if held_long:  # both down and untouched long enough: settled, then held for the hold time
        assert C.VOID in commands
