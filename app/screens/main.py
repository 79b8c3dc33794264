"""The main screen: tab bar, the workstream pane, status bar and footer."""

from __future__ import annotations

import asyncio

from rich.markup import escape

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from app.engine import events as ev
from app.screens.approval import ApprovalScreen
from widgets.pane import WorkstreamPane
from widgets.prompt import PromptInput
from widgets.status_bar import StatusBar
from widgets.tab_bar import TabBar

SETUP_MESSAGE = """\
[b]No model is configured yet.[/b]

Point Whimbrel at any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, Ollama, LM Studio):

  [b]whimbrel --base-url http://127.0.0.1:11434/v1 --model llama3.2[/b]

or set [b]OPENAI_API_KEY[/b] (and optionally [b]OPENAI_BASE_URL[/b]) and pass [b]--model NAME[/b],
or add a model to [b]{config}[/b]:

  \\[model]
  default = "local"

  \\[models.local]
  base_url = "http://127.0.0.1:8000/v1"
  model = "qwen2.5-coder"
"""


class MainScreen(Screen):
    """One workstream for now; the pane does the rendering, the app runs the turns."""

    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("ctrl+q", "app.quit", "Quit", priority=True),
    ]

    def compose(self) -> ComposeResult:
        yield TabBar(id="tab-bar")
        yield WorkstreamPane(id="pane")
        yield StatusBar(id="status-bar")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

    @property
    def pane(self) -> WorkstreamPane:
        return self.query_one(WorkstreamPane)

    async def show_setup(self, config_path: str) -> None:
        message = SETUP_MESSAGE.format(config=escape(config_path))
        await self.pane.transcript.add(Static(message, id="setup-message"))

    def refresh_bars(self) -> None:
        workstream = getattr(self.app, "workstream", None)
        if workstream is None:
            return
        tab_bar = self.query_one(TabBar)
        tab_bar.tabs = ((workstream.title, workstream.state),)
        self.query_one(StatusBar).state = workstream.state

    @on(PromptInput.Submitted)
    def submit(self, message: PromptInput.Submitted) -> None:
        self.app.submit_prompt(message.text)  # type: ignore[attr-defined]

    @on(WorkstreamPane.StateUpdate)
    def state_update(self, message: WorkstreamPane.StateUpdate) -> None:
        event = message.event
        status = self.query_one(StatusBar)
        if isinstance(event, ev.StateChanged):
            workstream = getattr(self.app, "workstream", None)
            if workstream is not None:
                workstream.state = event.state
            self.refresh_bars()
        else:
            status.tokens = event.total_tokens
            status.context_window = event.context_window

    @on(WorkstreamPane.ApprovalNeeded)
    def ask_approval(self, message: WorkstreamPane.ApprovalNeeded) -> None:
        request = message.event
        future: asyncio.Future = request.future
        workstream = getattr(self.app, "workstream", None)
        screen = ApprovalScreen(request.items, workstream.title if workstream else "")

        def resolve(decisions) -> None:
            if not future.done():
                future.set_result(decisions or {})

        def close_if_cancelled(_future: asyncio.Future) -> None:
            if future.cancelled() and screen.is_attached:
                screen.dismiss(None)

        future.add_done_callback(close_if_cancelled)
        self.app.push_screen(screen, callback=resolve)

    def action_cancel_turn(self) -> None:
        self.app.cancel_turn()  # type: ignore[attr-defined]
