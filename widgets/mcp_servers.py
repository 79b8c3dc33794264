"""The inspector's server list (a coloured status per server) and the Overview tab of the chosen one."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

STATUS_LOOK = {  # status -> (symbol, style)
    "ready": ("●", "bold green"),
    "connecting": ("◌", "bold yellow"),
    "authorizing": ("⚿", "bold magenta"),  # waiting for the user to sign in (OAuth)
    "failed": ("✖", "bold red"),
    "circuit-open": ("⊘", "bold dark_orange"),
    "disabled": ("○", "dim"),
}
REASON_WIDTH = 70


def status_text(status: str) -> Text:
    symbol, style = STATUS_LOOK.get(status, ("?", "bold"))
    return Text(f"{symbol} {status}", style=style)


def server_label(summary: dict[str, Any]) -> Text:
    """Two or three lines: name and status; what it offers, or why it is not ready."""
    symbol, style = STATUS_LOOK.get(summary["status"], ("?", "bold"))
    label = Text()
    label.append(f"{symbol} ", style=style)
    label.append(summary["name"], style="bold")
    label.append(f"  {summary['status']}", style=style)
    if summary["status"] == "ready":
        counts = [f"{summary[k]} {k}" for k in ("tools", "resources", "prompts") if summary[k]]
        label.append(f"\n  {summary['transport']} · {', '.join(counts) or 'nothing offered'}", style="dim")
    elif summary["reason"] and summary["status"] != "disabled":
        reason = summary["reason"]
        reason = reason if len(reason) <= REASON_WIDTH else reason[:REASON_WIDTH - 1] + "…"
        label.append(f"\n  {reason}", style="red" if summary["status"] in ("failed", "circuit-open") else "dim")
    else:
        label.append(f"\n  {summary['transport']}", style="dim")
    return label


class ServerList(OptionList):
    """One option per server (id = server name); `show()` keeps the highlighted server.

    The single-letter server actions live here, not on the screen, so typing into a form never
    triggers them; the screen implements them.
    """

    BINDINGS = [
        Binding("a", "screen.add_server", "Add", id="mcp.add"),
        Binding("delete", "screen.remove_server", "Remove", id="mcp.remove"),
        Binding("p", "screen.ping", "Ping", id="mcp.ping"),
        Binding("r", "screen.reconnect", "Reconnect", id="mcp.reconnect"),
        Binding("e", "screen.toggle_enabled", "Enable/disable", id="mcp.enable_disable"),
    ]

    _labels: list[Text] = []

    def show(self, summaries: list[dict[str, Any]]) -> None:
        labels = [server_label(s) for s in summaries]
        if labels == self._labels:
            return
        self._labels = labels
        current = self.selected
        self.clear_options()
        for summary, label in zip(summaries, labels):
            self.add_option(Option(label, id=summary["name"]))
        names = [s["name"] for s in summaries]
        if names:
            self.highlighted = names.index(current) if current in names else 0

    @property
    def selected(self) -> str | None:
        option = self.highlighted_option
        return option.id if option is not None else None


def _capabilities(caps: dict[str, Any]) -> str:
    words = []
    for name, value in caps.items():
        flags = [k for k, v in (value or {}).items() if v is True or v == {}] if isinstance(value, dict) else []
        words.append(f"{name} ({', '.join(flags)})" if flags else name)
    return ", ".join(words) or "none declared"


def _last_error(state: Any) -> str:
    if state.status in ("failed", "circuit-open") and state.reason:
        return state.reason
    if state.breaker.last_error:
        return state.breaker.last_error
    errors = [m for m in state.logs.messages if m.level in ("error", "critical", "alert", "emergency")]
    return errors[-1].text if errors else ""


def overview(state: Any) -> RenderableType:
    """Status, transport, target, protocol version, server info, capabilities, counts, last error."""
    summary = state.summary()
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    status = status_text(summary["status"])
    if summary["reason"]:
        status.append(f" — {summary['reason']}", style="default")
    if summary["retry_in"] is not None and summary["status"] != "disabled":
        status.append(f" (next try in {summary['retry_in']:.0f}s)", style="dim")
    info = summary["server_info"] or {}
    identity = " ".join(str(info[k]) for k in ("name", "version") if info.get(k)) or "—"
    if info.get("title") and info.get("title") != info.get("name"):
        identity += f" ({info['title']})"
    rows = [
        ("Status", status),
        ("Transport", Text(summary["transport"])),
        ("Target", Text(summary["target"])),
        ("Protocol", Text(summary["protocol_version"] or "—")),
        ("Server", Text(identity)),
        ("Capabilities", Text(_capabilities(summary["capabilities"]) if summary["capabilities"] else "—")),
        ("Offers", Text(f"{summary['tools']} tools, {summary['resources']} resources, {summary['templates']} "
                        f"templates, {summary['prompts']} prompts")),
        ("Failures", Text(f"{summary['consecutive_failures']} in a row" if summary["consecutive_failures"]
                          else "none")),
        ("Last error", Text(_last_error(state) or "none", style="red" if _last_error(state) else "")),
    ]
    for label, value in rows:
        table.add_row(label, value)
    return table


def instructions(state: Any) -> RenderableType:
    text = (state.instructions or "").strip()
    return Group(Text("Instructions", style="bold"), Text(text)) if text else ""


class ServerOverview(VerticalScroll):
    """The Overview tab: the facts, then buttons for ping, reconnect, enable/disable, refresh and remove."""

    BUTTONS = (("ping", "Ping"), ("reconnect", "Reconnect"), ("toggle", "Disable"),
               ("refresh", "Refresh"), ("remove", "Remove"))

    def compose(self) -> ComposeResult:
        yield Static("", id="overview-facts")
        with Horizontal(id="overview-buttons"):
            for action, label in self.BUTTONS:
                yield Button(label, id=f"server-{action}", compact=True,
                             variant="error" if action == "remove" else "default")
        yield Static("", id="overview-ping")
        yield Static("", id="overview-instructions")

    def show(self, state: Any | None) -> None:
        """The facts, the buttons (below them, so long instructions never push them away), the instructions."""
        self.query_one("#overview-facts", Static).update(overview(state) if state is not None else "")
        self.query_one("#overview-instructions", Static).update(instructions(state) if state is not None else "")
        toggle = self.query_one("#server-toggle", Button)
        toggle.label = "Enable" if state is not None and state.status == "disabled" else "Disable"
        for button in self.query(Button):
            button.disabled = state is None

    def show_ping(self, text: RenderableType) -> None:
        self.query_one("#overview-ping", Static).update(text)
