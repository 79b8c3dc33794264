"""The sampling approval modal: an MCP server asks the workstream's model for a completion.

Shows who asks, the model that would answer, the limits, the system prompt and every message
(scrollable), so the user can judge what is sent. Dismisses with True (approve) or False (deny).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from app.mcp.features import SamplingRequest
from app.screens.elicitation import heading
from styles import STYLES_DIR


def request_facts(request: SamplingRequest, model: str) -> Text:
    """`Answered by … · up to N tokens · temperature …` plus the server's model hints."""
    text = Text()
    text.append("Answered by ", style="dim")
    text.append(model, style="bold")
    text.append(f"   up to {request.max_tokens} tokens", style="dim")
    if request.temperature is not None:
        text.append(f"   temperature {request.temperature:g}", style="dim")
    if request.model_hints:
        text.append(f"\nThe server would prefer: {', '.join(request.model_hints)}", style="dim")
    if request.include_context and request.include_context != "none":
        text.append(f"\nThe server asked to include context ({request.include_context}); Whimbrel sends "
                    "only the messages below.", style="dim")
    return text


def message_block(role: str, body: str) -> Text:
    text = Text()
    text.append(f"{role}\n", style={"user": "bold cyan", "assistant": "bold green"}.get(role, "bold yellow"))
    text.append(body or "(empty)")
    return text


class SamplingScreen(ModalScreen[bool]):
    """One sampling request: y approves (the model answers), n or Esc denies."""

    CSS_PATH = STYLES_DIR / "client_requests.tcss"
    BINDINGS = [
        Binding("y", "decide(True)", "Approve"),
        Binding("n", "decide(False)", "Deny"),
        Binding("escape", "decide(False)", "Deny"),
    ]

    def __init__(self, request: SamplingRequest, model: str, workstream_title: str = "") -> None:
        super().__init__()
        self.request = request
        self.model = model
        self.workstream_title = workstream_title

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="client-request-dialog", classes="-sampling"):
            yield Static(heading("asks the model for a completion", request.server, self.workstream_title),
                         id="request-heading")
            yield Static(request_facts(request, self.model), id="sampling-facts")
            with VerticalScroll(id="request-body"):
                if request.system_prompt:
                    yield Static(message_block("system prompt", request.system_prompt),
                                 classes="sampling-message -system")
                for message in request.messages:
                    yield Static(message_block(message.get("role", "user"), message.get("text", "")),
                                 classes="sampling-message")
            with Horizontal(id="request-buttons"):
                yield Button("Approve", id="approve", variant="primary")
                yield Button("Deny", id="deny", variant="error")
            yield Static("[b]y[/] approve: the model's reply goes to the server   [b]n[/] / [b]Esc[/] deny",
                         id="request-keys")

    def on_mount(self) -> None:
        self.query_one("#request-body").focus()

    def action_decide(self, approve: bool) -> None:
        self.dismiss(approve)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "approve")
