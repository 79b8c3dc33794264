"""The permission part of the status bar: the mode (when not the default `ask`), bypass in red, and
"unsandboxed" when commands run without an OS sandbox."""

from __future__ import annotations

from rich.text import Text

MODE_STYLES = {"accept-edits": "bold cyan", "plan": "bold blue", "auto": "bold yellow", "bypass": "bold white on red"}


def permission_marker(workstream) -> Text | None:
    """None when there is nothing to say (ask mode, sandboxed): the bar stays as it was."""
    guard = getattr(getattr(workstream, "session", None), "guard", None)
    if guard is None:
        return None
    text = Text()
    mode = guard.mode
    if mode == "bypass":
        text.append(" ⚠ BYPASS: nothing is asked ", style=MODE_STYLES["bypass"])
    elif mode != "ask":
        text.append(f"mode: {mode}", style=MODE_STYLES.get(mode, "bold"))
    if not guard.gate.sandboxed:
        if text:
            text.append("  ")
        text.append("unsandboxed", style="bold yellow")
    return text or None
