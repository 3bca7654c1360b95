"""What a checked scenario is: `Scenario`, its `Step`s, `ScenarioError`, and the words of the format.

The words (actions, buttons, touches, faults, expectations) are those docs/bench.md describes; the loader
(`simulators.bench.scenario`) and the step checks (`simulators.bench.steps`) accept nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_runtime.errors import ConfigError
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.commands import PANEL_BUTTONS, Command, Role
from table_runtime.game.rules import RuleOptions, TableLimits

BUTTONS = tuple(PANEL_BUTTONS)  # the panel's buttons and every command, named in game/commands.py
TOUCHES = tuple(Command)
ROLES = tuple(Role)
SPECIAL_CHIPS: dict[str, AlarmKind] = {  # the special chip -> the alarm it must raise
    "counterfeit": AlarmKind.COUNTERFEIT_CHIP, "stolen": AlarmKind.STOLEN_CHIP, "void": AlarmKind.VOID_CHIP,
    "other-casino": AlarmKind.OTHER_CASINO_CHIP, "relabelled": AlarmKind.TAG_MISMATCH,
}
FAULTS = (
    "shoe_unplug", "shoe_replug", "shoe_corrupt", "shoe_drop", "shoe_duplicate", "shoe_lose",
    "door_open", "door_close", "jam", "clear_jam", "unreadable_card",
    "reader_unplug", "reader_replug", "broker_down", "broker_up", "power_loss",
    *("reader_impostor", "reader_lose_replies", "reader_slow", "reader_more_data", "reader_heal"),
)  # fmt: skip
FEIG_FAULTS = ("reader_impostor", "reader_lose_replies", "reader_slow", "reader_more_data", "reader_heal")
# the hostile FEIG reader's modes (docs/protocols/feig.md 5): only with `table-bench run --reader feig`
EXPECT_KEYS = (
    "phase", "round", "hands", "bank", "totals", "payouts", "alarms", "alarms_include", "active_alarms",
    "journal", "feed", "recovered", "devices", "zones", "held_cards", "allowed", "turn", "shoe", "display", "recall",
    "seance",
)  # fmt: skip
STEP_ACTIONS = ("place", "chip", "remove", "clear", "press", "touch", "draw", "settle", "fault", "load_shoe",
                "wait", "expect", "tray")
TOP_KEYS = ("name", "cites", "description", "profile", "rules", "limits", "shoe", "cut_after", "feed",
            "display", "reader_miss_rate", "expected_fail", "timeout", "steps", "expect", "tray")



class ScenarioError(ConfigError):
    """A scenario file that cannot be run; `key` names the place (``steps[3].draw``)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the script: `action` with its checked `args`; `key` locates it in the file."""

    action: str
    args: Any
    key: str


@dataclass(frozen=True, slots=True)
class Scenario:
    """A whole scenario, checked."""

    name: str
    path: Path | None
    cites: tuple[str, ...]
    rules: RuleOptions
    limits: TableLimits
    shoe: tuple[Card, ...]
    cut_after: int | None
    steps: tuple[Step, ...]
    description: str = ""
    feed: bool = False
    display: bool = False
    reader_miss_rate: float = 0.0
    expected_fail: str | None = None
    timeout: float = 60.0
    zones: tuple[str, ...] = field(default=())
    tray: tuple[int, int] = (0, 0)  # the chip tray read by the reader (simulators/chip_rack.py): rows, chips per row

    @property
    def needs_broker(self) -> bool:
        return self.feed or any(
            (step.action == "fault" and str(step.args["fault"]).startswith("broker"))
            or (step.action == "expect" and "feed" in step.args) for step in self.steps)
