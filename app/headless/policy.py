"""The permission modes a face without a window offers (`whimbrel run --mode`, ACP session modes).

Calls are decided by the permission engine (app/permissions/), as in the TUI; these are the modes a
headless run or an ACP client may pick. `bypass` is left out: it is only for the TUI's CLI flag.
"""

from __future__ import annotations

from typing import Literal

Mode = Literal["ask", "accept-edits", "plan", "auto"]
MODES: tuple[Mode, ...] = ("ask", "accept-edits", "plan", "auto")
