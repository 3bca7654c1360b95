"""The dealer panel: six buttons, a lamp per box, a tower light and a buzzer, on GPIO.

`DealerPanel` (drivers.ports) is the port the runtime codes against; `GpioDealerPanel` is the
gpiozero implementation (real pins on a Pi, gpiozero's `MockFactory` in tests
and in the demo). The runtime reads commands with ``async for command in
panel.commands()`` and drives the outputs with `show_turn`, `set_tower`,
`alarm_on` and `alarm_off`.

Buttons (docs/rules.md "Devices"): drivers/panel_buttons.py (press or release,
debounce, the CONFIRM+UNDO chord that gives VOID).

gpiozero calls back on its own threads: those callbacks only timestamp the edge
and hand it to the event loop with ``loop.call_soon_threadsafe``; everything
else (`ButtonLogic`, the command queue, timers) runs on the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from drivers.panel_buttons import BUTTONS, ButtonLogic, PanelUsageError
from drivers.ports import DealerPanel, PanelCommand, Tower
from firmware_bridge.errors import DeviceError

__all__ = [
    "BUTTONS",
    "ButtonLogic",
    "BuzzerPattern",
    "DealerPanel",
    "GpioDealerPanel",
    "PanelCommand",
    "PanelDeviceError",
    "PanelUsageError",
    "PanelWiring",
    "Tower",
    "pin_factory_for",
]


class PanelDeviceError(DeviceError):
    """The GPIO pins could not be claimed (in use, no such pin, no pin library)."""


class PanelWiring(Protocol):
    """Where the panel's parts are wired: BCM pin numbers and timings (the table's configuration gives them)."""

    @property
    def buttons(self) -> Mapping[str, int]:
        """Button name (one of BUTTONS) -> pin."""
        ...

    @property
    def box_lamps(self) -> tuple[int, ...]:
        """The lamp of each box, box 1 first."""
        ...

    @property
    def tower_green(self) -> int: ...

    @property
    def tower_amber(self) -> int: ...

    @property
    def tower_red(self) -> int: ...

    @property
    def buzzer(self) -> int: ...

    @property
    def debounce_seconds(self) -> float: ...

    @property
    def void_hold_seconds(self) -> float: ...

    @property
    def buttons_pull_up(self) -> bool:
        """True when the buttons are wired to ground (pressed reads low)."""
        ...


@dataclass(frozen=True, slots=True)
class BuzzerPattern:
    """An alarm's beeps: `count` beeps of `on_seconds` with `off_seconds` between."""

    on_seconds: float = 0.15
    off_seconds: float = 0.1
    count: int = 3


def pin_factory_for(name: str | None, *, chip: int | None = None) -> Any:
    """The gpiozero pin factory called `name` in configuration; None: gpiozero's default.

    gpiozero's default comes from GPIOZERO_PIN_FACTORY (and GPIOZERO_MOCK_PIN_CLASS
    for "mock"); "mock" here uses `MockPWMPin`, as our tests do. `chip` is the
    /dev/gpiochipN the lgpio factory opens (drivers/gpio_chip.py); None: gpiozero's choice.
    """
    if name is None:
        return None
    try:
        if name == "mock":
            from gpiozero.pins.mock import MockFactory, MockPWMPin

            return MockFactory(pin_class=MockPWMPin)
        if name == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory() if chip is None else LGPIOFactory(chip=chip)
        if name == "rpigpio":
            from gpiozero.pins.rpigpio import RPiGPIOFactory

            return RPiGPIOFactory()
        if name == "pigpio":
            from gpiozero.pins.pigpio import PiGPIOFactory

            return PiGPIOFactory()
        if name == "native":
            from gpiozero.pins.native import NativeFactory

            return NativeFactory()
    except Exception as error:  # each pin library fails its own way (ImportError, OSError, RuntimeError...)
        raise PanelDeviceError(f"GPIO pin factory {name!r} is not usable here: {error}") from error
    raise PanelUsageError(f"unknown GPIO pin factory {name!r}")


class GpioDealerPanel:
    """Owns the panel's gpiozero devices while open (``async with``), and the command queue.

    `pin_factory` is a gpiozero factory object (see `pin_factory_for`); None
    lets gpiozero choose from its environment. `clock` stamps edges; it must
    be the clock the event loop's timers count in (monotonic seconds).
    """

    def __init__(
        self,
        pins: PanelWiring,
        *,
        pin_factory: Any = None,
        buzzer_pattern: BuzzerPattern = BuzzerPattern(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._pins = pins
        self._factory = pin_factory
        self._pattern = buzzer_pattern
        self._clock = clock
        self._logic = ButtonLogic(pins.debounce_seconds, pins.void_hold_seconds, tuple(pins.buttons))
        self._queue: asyncio.Queue[PanelCommand | None] = asyncio.Queue()
        self._judged = asyncio.Event()  # set (and replaced) each time the logic has judged an edge or a window
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._buttons: dict[str, Any] = {}
        self._lamps: list[Any] = []
        self._tower: dict[Tower, Any] = {}
        self._buzzer: Any = None
        self._turn: int | None = None
        self._tower_state = Tower.OFF
        self._alarm = False

    async def __aenter__(self) -> GpioDealerPanel:
        from gpiozero import LED, Button, Buzzer, GPIOZeroError

        self._loop = asyncio.get_running_loop()
        factory = self._factory
        try:
            for name, pin in self._pins.buttons.items():
                # hold_time: we time holds ourselves; gpiozero's hold thread only delays close() of a
                # held button by up to this long, so keep it short.
                button = Button(pin, pull_up=self._pins.buttons_pull_up, bounce_time=self._pins.debounce_seconds,
                                hold_time=0.1, pin_factory=factory)
                button.when_pressed = self._edge_callback(name, True)
                button.when_released = self._edge_callback(name, False)
                self._buttons[name] = button
            self._lamps = [LED(pin, pin_factory=factory) for pin in self._pins.box_lamps]
            self._tower = {
                Tower.PLAY: LED(self._pins.tower_green, pin_factory=factory),
                Tower.WAITING: LED(self._pins.tower_amber, pin_factory=factory),
                Tower.ALARM: LED(self._pins.tower_red, pin_factory=factory),
            }
            self._buzzer = Buzzer(self._pins.buzzer, pin_factory=factory)
        except (GPIOZeroError, OSError) as error:
            await self._close_devices()
            raise PanelDeviceError(f"cannot claim the dealer panel's GPIO pins: {error}") from error
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await asyncio.sleep(0)  # edges already handed to the loop are taken before the end marker
        await self._close_devices()
        self._queue.put_nowait(None)

    async def _close_devices(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        buttons, outputs = list(self._buttons.values()), [*self._lamps, *self._tower.values()]
        if self._buzzer is not None:
            outputs.append(self._buzzer)
        self._buttons, self._lamps, self._tower, self._buzzer = {}, [], {}, None
        for output in outputs:
            output.close()  # an output's close() also drives it off
        # Each button's close() joins gpiozero's hold thread, which polls every 0.1 s: close them side by side,
        # off the loop.
        await asyncio.gather(*(asyncio.to_thread(button.close) for button in buttons))

    # -- inputs: gpiozero threads -> loop ------------------------------------

    def _edge_callback(self, name: str, pressed: bool) -> Callable[[], None]:
        loop = self._loop
        assert loop is not None

        def on_edge() -> None:  # on a gpiozero thread: stamp it and hand it over, nothing else
            now = self._clock()
            with contextlib.suppress(RuntimeError):  # the loop is closed: the panel is shutting down
                loop.call_soon_threadsafe(self._on_edge, name, pressed, now)

        return on_edge

    def _on_edge(self, name: str, pressed: bool, now: float) -> None:
        if not self._buttons:
            return  # closed
        self._emit(self._logic.edge(name, pressed, now))
        self._wake()
        self._schedule()

    def _on_deadline(self) -> None:
        self._timer = None
        if not self._buttons:
            return
        levels = {name: bool(button.is_pressed) for name, button in self._buttons.items()}
        self._emit(self._logic.settle(self._clock(), levels))
        self._wake()
        self._schedule()

    def _wake(self) -> None:
        """A level may have changed: wake who waits for one (`wait_for_press`, `wait_for_release`)."""
        self._judged.set()
        self._judged = asyncio.Event()

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self._logic.deadline
        if deadline is not None and self._loop is not None:
            self._timer = self._loop.call_later(max(0.0, deadline - self._clock()), self._on_deadline)

    def _emit(self, commands: list[PanelCommand]) -> None:
        for command in commands:
            self._queue.put_nowait(command)

    async def commands(self) -> AsyncIterator[PanelCommand]:
        """Each command as the dealer gives it; ends when the panel is closed."""
        while (command := await self._queue.get()) is not None:
            yield command
        self._queue.put_nowait(None)  # let any other reader end too

    def is_pressed(self, button: str) -> bool:
        """Whether the panel has taken `button` as held down (its debounced level, not the pin's): an edge inside
        the debounce window counts only once the window ends. Simulated hands wait on it between their edges, as
        a real hand is slower than the debounce."""
        return self._logic.is_pressed(button)

    async def wait_for_press(self, button: str) -> None:
        """Until the panel has taken `button` as held down (`is_pressed`); bound it with `asyncio.timeout`."""
        await self._wait_for_level(button, True)

    async def wait_for_release(self, button: str) -> None:
        """Until the panel has taken `button` as let go; bound it with `asyncio.timeout`."""
        await self._wait_for_level(button, False)

    async def _wait_for_level(self, button: str, pressed: bool) -> None:
        while self._logic.is_pressed(button) != pressed:
            await self._judged.wait()

    # -- outputs ---------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        """The box whose lamp is lit."""
        return self._turn

    @property
    def tower(self) -> Tower:
        """The colour showing now (red while an alarm is on)."""
        return Tower.ALARM if self._alarm else self._tower_state

    @property
    def alarm(self) -> bool:
        return self._alarm

    def show_turn(self, box: int | None) -> None:
        if box is not None and (isinstance(box, bool) or not isinstance(box, int)
                                or not 1 <= box <= len(self._pins.box_lamps)):
            raise PanelUsageError(f"box {box!r}: this table has boxes 1 to {len(self._pins.box_lamps)}")
        self._turn = box
        for number, lamp in enumerate(self._lamps, start=1):
            lamp.value = number == box

    def set_tower(self, state: Tower) -> None:
        self._tower_state = Tower(state)
        self._show_tower()

    def alarm_on(self) -> None:
        self._alarm = True
        self._show_tower()
        if self._buzzer is not None:
            pattern = self._pattern
            self._buzzer.beep(on_time=pattern.on_seconds, off_time=pattern.off_seconds, n=pattern.count,
                              background=True)

    def alarm_off(self) -> None:
        self._alarm = False
        if self._buzzer is not None:
            self._buzzer.off()
        self._show_tower()

    def _show_tower(self) -> None:
        showing = self.tower
        for colour, light in self._tower.items():
            light.value = colour == showing
