"""The status bar's code-mode marker: `tools: code` or `tools: both`, nothing in native mode."""

from __future__ import annotations

from rich.text import Text


def tool_mode_marker(workstream) -> Text | None:
    """`tools: code` for the status bar; None in native mode (the bar stays as it was)."""
    modes = getattr(getattr(workstream, "session", None), "tool_modes", None)  # none on the first frame:
    mode = modes.current() if modes is not None else "native"  # no engine import before boot
    return None if mode == "native" else Text(f"tools: {mode}", style="bold green")
