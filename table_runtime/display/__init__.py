"""The dealer display: the live table in a browser, served over HTTP and a WebSocket.

`DisplayServer` serves the page in `static/` and pushes table snapshots to it;
the runtime plugs in through `DisplayBackend`. The contract (snapshot JSON,
recalled rounds, WebSocket messages, roles) is docs/display.md.
"""

from table_runtime.display.backend import ALL_COMMANDS, DEALER_COMMANDS, DisplayBackend, Role
from table_runtime.display.server import DisplayAccessError, DisplayServer

__all__ = ["ALL_COMMANDS", "DEALER_COMMANDS", "DisplayAccessError", "DisplayBackend", "DisplayServer", "Role"]
