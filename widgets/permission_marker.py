"""The permission part of the status bar: the mode in every mode (`ask` too), bypass in red,
"network on" when the workstream's sandboxed commands may use the network (/network), and
"unsandboxed" when commands run without an OS sandbox."""

from __future__ import annotations

from rich.text import Text

MODE_STYLES = {"ask": "bold", "accept-edits": "bold cyan", "plan": "bold blue", "auto": "bold yellow", "bypass": "bold white on red"}


def permission_marker(workstream) -> Text | None:
    """None only for a workstream without a permission gate."""
    guard = getattr(getattr(workstream, "session", None), "guard", None)
    if guard is None:
        return None
    text = Text()
    mode = guard.mode
    if mode == "bypass":
        text.append(" ⚠ BYPASS: nothing is asked ", style=MODE_STYLES["bypass"])
    else:
        text.append(f"mode: {mode}", style=MODE_STYLES.get(mode, "bold"))
    if guard.gate.sandboxed and guard.gate.network:
        text.append("  ")
        text.append("network on", style="bold magenta")
    if not guard.gate.sandboxed:
        if text:
            text.append("  ")
        text.append("unsandboxed", style="bold yellow")
    return text or None
