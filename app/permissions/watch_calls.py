"""How the gate judges `watch`: per action. `list` and `cancel` only read or stop Whimbrel's own
rows, so they run unasked; `create` (and every later poll) runs a shell command, so it is judged
exactly as that command would be as `bash`: its rules, its risk, its protected places, the mode."""

from __future__ import annotations

from typing import Any

from app.permissions.call_view import CallView

READ_ACTIONS = ("list", "cancel")


def watch_action(args: dict[str, Any]) -> str:
    """The action a watch call asks for (create when none is named, as the tool does)."""
    return str(args.get("action") or "create")


def as_judged(call: Any) -> Any:
    """The CallView the gate decides for a `watch` call (any other call is returned as it is)."""
    if call.tool != "watch":
        return call
    if watch_action(call.args) in READ_ACTIONS:
        return CallView("watch", dict(call.args), list(call.paths), read_only=True, primary=call.primary)
    return poll_view(str(call.args.get("command") or ""))


def poll_view(command: str) -> Any:
    """The bash call a watch's command is judged as, at its creation and at each poll."""
    return CallView("bash", {"command": command}, [], read_only=False, primary="command")
