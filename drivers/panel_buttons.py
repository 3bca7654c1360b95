"""The dealer panel's buttons as commands: debounce, press or release, the VOID chord. Pure.

Buttons (docs/rules.md "Devices"):

- DEAL (= NO MORE BETS), NEXT (stand), DOUBLE, SPLIT and SURRENDER (optional: a panel may have no such
  button) act when pressed.
- CONFIRM and UNDO act when *released*, because together they make a chord:
  holding CONFIRM and UNDO down together for ``void_hold_seconds`` gives VOID
  (the supervisor voids the round). A chord never also gives CONFIRM or UNDO,
  and a chord let go before the hold time gives nothing, so a dealer who
  brushes both buttons cannot void a round or undo a card by accident. A
  single held button was rejected for VOID: CONFIRM is pressed every round and
  a long press of it is an easy slip.
- Debounce: an edge within ``debounce_seconds`` of the last accepted edge of the
  same button is not trusted; when that window ends the button's real level is
  read again and, if it changed, that change is taken. gpiozero's
  ``bounce_time`` is also set, for the pin libraries that implement it (its
  mock pins do not, which is why the filter is ours too).

`ButtonLogic` is given timestamps and levels and never reads a clock;
`drivers.dealer_panel.GpioDealerPanel` feeds it gpiozero's edges on the loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from drivers.ports import PanelCommand
from firmware_bridge.errors import TableError

__all__ = ["BUTTONS", "ButtonLogic", "PanelUsageError"]


class PanelUsageError(TableError, ValueError):
    """A panel method called with something it cannot show (box 9 on a 7-box table)."""


_CHORD = ("CONFIRM", "UNDO")
BUTTONS: tuple[str, ...] = tuple(command.value for command in PanelCommand if command is not PanelCommand.VOID)
"""The buttons, each named for the command it gives (VOID is the CONFIRM+UNDO chord); a panel wires the six
first ones and, where the casino offers surrender, SURRENDER."""


@dataclass(slots=True)
class _ButtonState:
    pressed: bool = False  # the accepted (debounced) level
    accepted_at: float = float("-inf")
    unsettled: bool = False  # an edge came inside the debounce window: read the level again when it ends
    in_chord: bool = False  # this press overlapped the other chord button


@dataclass(slots=True)
class ButtonLogic:
    """Turns button edges into commands: debounce, press/release actions, the VOID chord.

    Pure: it is given timestamps and levels and never reads a clock, so it is
    tested on exact times. `deadline` says when `settle` must be called next.
    """

    debounce_seconds: float
    void_hold_seconds: float
    buttons: tuple[str, ...] = BUTTONS
    _buttons: dict[str, _ButtonState] = field(init=False)
    _chord_since: float | None = None
    _void_given: bool = False

    def __post_init__(self) -> None:
        unknown = sorted(set(self.buttons) - set(BUTTONS))
        if unknown:
            raise PanelUsageError(f"button {unknown[0]!r}: the panel's buttons are {', '.join(BUTTONS)}")
        self._buttons = {name: _ButtonState() for name in self.buttons}

    def edge(self, button: str, pressed: bool, now: float) -> list[PanelCommand]:
        """A raw edge seen on `button`; returns the commands it completes."""
        state = self._buttons[button]
        if now - state.accepted_at < self.debounce_seconds:
            state.unsettled = True  # bouncing: `settle` reads the real level when the window ends
            return []
        if pressed == state.pressed:
            return []
        return self._accept(button, pressed, now)

    def settle(self, now: float, levels: Mapping[str, bool]) -> list[PanelCommand]:
        """Called at `deadline` with the buttons' real levels: end debounce windows, fire VOID when held."""
        commands: list[PanelCommand] = []
        for button, state in self._buttons.items():
            if state.unsettled and now >= state.accepted_at + self.debounce_seconds:  # the sum `deadline` gives
                state.unsettled = False
                level = levels.get(button, state.pressed)
                if level != state.pressed:
                    commands += self._accept(button, level, now)
        if (self._chord_since is not None and not self._void_given
                and now >= self._chord_since + self.void_hold_seconds):
            self._void_given = True
            commands.append(PanelCommand.VOID)
        return commands

    @property
    def deadline(self) -> float | None:
        """The next time `settle` has work to do (end of a debounce window, VOID hold), if any."""
        times = [state.accepted_at + self.debounce_seconds for state in self._buttons.values() if state.unsettled]
        if self._chord_since is not None and not self._void_given:
            times.append(self._chord_since + self.void_hold_seconds)
        return min(times) if times else None

    def is_pressed(self, button: str) -> bool:
        return self._buttons[button].pressed

    def _accept(self, button: str, pressed: bool, now: float) -> list[PanelCommand]:
        state = self._buttons[button]
        state.pressed, state.accepted_at = pressed, now
        if button not in _CHORD:
            return [PanelCommand(button)] if pressed else []
        confirm, undo = (self._buttons.get(name, _ButtonState()) for name in _CHORD)
        if pressed:
            if confirm.pressed and undo.pressed:
                confirm.in_chord = undo.in_chord = True
                self._chord_since, self._void_given = now, False
            return []
        self._chord_since = None
        in_chord, state.in_chord = state.in_chord, False
        return [] if in_chord else [PanelCommand(button)]
