"""What the display needs from the runtime: the seam between the page and the round.

The runtime implements `DisplayBackend`; the display server never touches the
round, the journal or the devices directly. Snapshots and recalled rounds are
plain JSON-able dicts in the shape documented in docs/display.md.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from table_runtime.game import commands
from table_runtime.staff.registry import Employee

Role = Literal["dealer", "supervisor", "pit"]  # the values of game.commands.Role

# Commands the dealer's touch screen may send (VOID is the supervisor's; DEAL is the panel's button).
SUPERVISOR_COMMANDS: frozenset[str] = frozenset(commands.SUPERVISOR_COMMANDS)
DEALER_COMMANDS: frozenset[str] = frozenset(commands.Command) - SUPERVISOR_COMMANDS - {commands.Command.DEAL}
ALL_COMMANDS: frozenset[str] = DEALER_COMMANDS | SUPERVISOR_COMMANDS

# How many rounds the recall view may ask for (the gaming-lab standards ask for at least 10).
RECALL_MAX_ROUNDS = 50


class DisplayBackend(Protocol):
    """The live table as the display sees it; implemented by the runtime."""

    def snapshot(self) -> dict[str, Any]:
        """The current table snapshot (docs/display.md, "The table snapshot")."""
        ...

    async def command(self, name: str, args: dict[str, Any], *, role: str) -> dict[str, Any]:
        """Apply a touch command; `role` is "dealer" or "supervisor".

        Returns ``{"ok": bool, "message": str}``. A refused command returns ok False
        with a message the dealer can read; alarms arrive in later snapshots.
        """
        ...

    def recall(self, last: int) -> list[dict[str, Any]]:
        """The last `last` rounds from the journal, newest last (docs/display.md, "A recalled round").

        Called in a worker thread (it replays the journal): it must only read what is safe to read there.
        """
        ...

    async def security_alarm(self, kind: str, message: str, rule: str) -> None:
        """A security event at the display (supervisor PIN locked): journaled as an alarm, shown, published; returns
        once it is durable."""
        ...

    def ratings(self) -> dict[str, Any]:
        """The supervisor's view of the rated players (asked with the PIN, or by the pit): ``sessions`` (each
        open session: box, player, time played, rounds, handle, win, theo, skill theo) and ``flags`` (the
        advice alarms, as the snapshot has them)."""
        ...


class StaffBackend(Protocol):
    """The staff registry as the display sees it, where one rules the table (runtime/staff_desk.py implements it):
    the dealer's login and logout, the employees' own PINs and a supervisor's badge, and a command by name."""

    def name(self, employee_id: str | None) -> str | None:
        """How the display names an employee (his name, else his id)."""
        ...

    async def verify_pin(self, employee_id: str, pin: str) -> Employee | None:
        """The employee if `pin` is his own (checked off the loop), else None."""
        ...

    def supervisor_badge(self) -> Employee | None:
        """The supervisor who badged at the table's reader in the last seconds (taken: one badge, one action)."""
        ...

    async def log_in(self, employee_id: str, via: Literal["badge", "pin"]) -> dict[str, Any]:
        """The dealer takes the table (the one on shift pushed); returns once journaled."""
        ...

    async def log_out(self) -> dict[str, Any]:
        """The dealer on shift leaves the table; returns once journaled."""
        ...

    async def dealer_work(self) -> list[dict[str, Any]]:
        """The dealers' stints at this table, each with its figures and the dealer's name (the supervisor's view)."""
        ...

    async def command_by(self, name: str, args: dict[str, Any], *, role: str, employee: str) -> dict[str, Any]:
        """A command made by `employee` (a supervisor by name), as `DisplayBackend.command`."""
        ...
