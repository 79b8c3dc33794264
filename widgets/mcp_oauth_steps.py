"""The inspector's OAuth tab: each step of a server's sign-ins as it happens (discovery, registration,
the browser, the token exchange, refreshes), with the highlighted step's request and answer below.
Times are seconds since the first step, so a slow step stands out.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

STAGE_STYLE = {"discovery": "cyan", "registration": "magenta", "authorization": "yellow", "token": "green",
               "refresh": "green", "MCP": ""}


def _stage_style(stage: str) -> str:
    return next((style for prefix, style in STAGE_STYLE.items() if stage.startswith(prefix)), "")


class OAuthStepsView(Vertical):
    """A table of the OAuth steps of the server on show, followed live, and the chosen step in full."""

    DEFAULT_CSS = """
    OAuthStepsView #oauth-intro { height: auto; padding: 0 1; }
    OAuthStepsView #oauth-table { height: 1fr; }
    OAuthStepsView #oauth-detail-scroll { height: 1fr; border-top: solid $primary 50%; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state: Any = None
        self._shown = 0
        self._steps: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="oauth-intro")
        yield DataTable(id="oauth-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="oauth-detail-scroll"):
            yield Static("", id="oauth-detail")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, width in (("+s", 8), ("step", 43), ("method", 8), ("status", 6), ("url", None)):
            table.add_column(label, width=width, key=label)

    def show_server(self, state: Any | None) -> None:
        if state is not self.state:
            self.state, self._shown, self._steps = state, 0, []
            self.query_one(DataTable).clear()
            self._detail(None)
        self._intro()
        self.poll()

    def _intro(self) -> None:
        state = self.state
        intro = self.query_one("#oauth-intro", Static)
        if state is None:
            intro.update("")
        elif state.transport not in ("http", "sse"):
            intro.update(Text(f"A {state.transport} server signs in with no OAuth.", style="dim"))
        elif state.oauth_steps is None or not state.oauth_steps.steps:
            intro.update(Text("No sign-in yet: steps appear here as they happen (r reconnects).", style="dim"))
        else:
            intro.update(Text("Each step of the sign-ins, as it happened; highlight one for its request and "
                              "answer (secrets redacted).", style="dim"))

    def poll(self) -> None:
        state = self.state
        steps = list(state.oauth_steps.steps) if state is not None and state.oauth_steps is not None else []
        if len(steps) == self._shown and (not steps or steps[-1] is (self._steps[-1] if self._steps else None)):
            return
        table = self.query_one(DataTable)
        if len(steps) < self._shown or (self._steps and steps[:1] != self._steps[:1]):
            table.clear()
            self._shown, self._steps = 0, []
        follow = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        start = steps[0].at if steps else 0.0
        for step in steps[self._shown:]:
            ok = step.ok()
            status = Text("" if step.status is None else str(step.status),
                          style="" if ok is None else ("green" if ok else "bold red"))
            table.add_row(Text(f"{step.at - start:.3f}", style="dim"), Text(step.stage, style=_stage_style(step.stage)),
                          Text(step.method, style="bold"), status, Text(step.url))
            self._steps.append(step)
        self._shown = len(steps)
        self._intro()
        if follow and table.row_count:
            table.move_cursor(row=table.row_count - 1)

    @on(DataTable.RowHighlighted, "#oauth-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        index = event.cursor_row
        self._detail(self._steps[index] if 0 <= index < len(self._steps) else None)

    def _detail(self, step: Any | None) -> None:
        detail = self.query_one("#oauth-detail", Static)
        if step is None:
            detail.update("")
            return
        parts: list[Any] = [Text(f"{step.stage}", style=f"bold {_stage_style(step.stage)}"),
                            Text(f"{step.method} {step.url}")]
        if step.note:
            parts.append(Text(step.note, style="italic"))
        if step.request:
            parts += [Text("\n── request", style="bold cyan"), Text(step.request)]
        if step.response:
            parts += [Text(f"\n── answer {step.status or ''}", style="bold green" if step.ok() else "bold red"),
                      Text(step.response)]
        detail.update(Group(*parts))
