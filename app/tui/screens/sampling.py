"""The sampling approval modal: an MCP server asks the workstream's model for a completion.

Shows who asks, the model that would answer, the limits, the system prompt and every message
(scrollable), so the user can judge what is sent. Dismisses with True (approve: the model answers),
False (deny) or a `HandReply` (the user wrote the answer: a server can be tested with no model at all).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from widgets.key_hints import key_hint
from app.mcp.features import SamplingRequest
from app.tui.screens.elicitation import heading
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


class HandReply(str):
    """The reply the user wrote instead of the model's."""


def message_block(role: str, body: str) -> Text:
    text = Text()
    text.append(f"{role}\n", style={"user": "bold cyan", "assistant": "bold green"}.get(role, "bold yellow"))
    text.append(body or "(empty)")
    return text


class SamplingScreen(ModalScreen["bool | HandReply"]):
    """One sampling request: y approves (the model answers), w writes the reply by hand, n or Esc denies.
    With no model (`model` empty) only a written reply or a denial is offered."""

    CSS_PATH = STYLES_DIR / "client_requests.tcss"
    BINDINGS = [
        Binding("y", "decide(True)", "Approve", id="sampling.approve"),
        Binding("w", "write", "Write reply", id="sampling.write_reply"),
        Binding("n,escape", "decide(False)", "Deny", id="sampling.deny"),
        Binding("ctrl+s", "send", "Send reply", priority=True, show=False, id="sampling.send_reply"),
    ]

    def __init__(self, request: SamplingRequest, model: str, workstream_title: str = "") -> None:
        super().__init__()
        self.request = request
        self.model = model
        self.workstream_title = workstream_title

    @property
    def writing(self) -> bool:
        return self.query_one("#sampling-reply", TextArea).display

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="client-request-dialog", classes="-sampling"):
            yield Static(heading("asks the model for a completion", request.server, self.workstream_title),
                         id="request-heading")
            yield Static(request_facts(request, self.model) if self.model else
                         Text(f"No model is configured: write the reply by hand "
                              f"({key_hint(self, 'sampling.write_reply')}), or deny.", style="yellow"),
                         id="sampling-facts")
            with VerticalScroll(id="request-body"):
                if request.system_prompt:
                    yield Static(message_block("system prompt", request.system_prompt),
                                 classes="sampling-message -system")
                for message in request.messages:
                    yield Static(message_block(message.get("role", "user"), message.get("text", "")),
                                 classes="sampling-message")
            reply = TextArea(id="sampling-reply", soft_wrap=True, compact=True,
                             placeholder="The reply the server gets, as if the model wrote it")
            reply.cursor_blink = False
            reply.display = False
            reply.border_title = "your reply, sent as the model's"
            yield reply
            with Horizontal(id="request-buttons"):
                yield Button("Approve", id="approve", variant="primary", disabled=not self.model)
                yield Button("Write reply", id="write")
                yield Button("Send reply", id="send", variant="success")
                yield Button("Deny", id="deny", variant="error")
            yield Static(self._keys(), id="request-keys")

    def _keys(self) -> str:
        """The hint line, naming the keys in force ([keymap]); while writing, letters type text."""
        deny = self._deny_keys()
        if self.is_mounted and self.writing:
            return f"[b]{key_hint(self, 'sampling.send_reply')}[/] send this reply to the server   [b]{deny}[/] deny"
        approve = (f"[b]{key_hint(self, 'sampling.approve')}[/] approve: the model's reply goes to the server   "
                   if self.model else "")
        return f"{approve}[b]{key_hint(self, 'sampling.write_reply')}[/] write the reply yourself   [b]{deny}[/] deny"

    def _deny_keys(self) -> str:
        keys = key_hint(self, "sampling.deny", every=True).split("/")
        if self.is_mounted and self.writing:
            keys = [key for key in keys if len(key) > 1] or keys  # a letter would be typed into the reply
        return " / ".join(keys)

    def on_mount(self) -> None:
        self.query_one("#send").display = False
        self.query_one("#request-body").focus()

    def action_decide(self, approve: bool) -> None:
        if approve and not self.model:
            self.notify(f"No model is configured: press {key_hint(self, 'sampling.write_reply')} to write the "
                        "reply by hand.", severity="warning")
            return
        self.dismiss(approve)

    def action_write(self) -> None:
        reply = self.query_one("#sampling-reply", TextArea)
        reply.display = True
        self.query_one("#send").display = True
        self.query_one("#write").display = False
        self.query_one("#request-keys", Static).update(self._keys())
        reply.focus()

    def action_send(self) -> None:
        if not self.writing:
            return
        text = self.query_one("#sampling-reply", TextArea).text
        if not text.strip():
            self.notify(f"Write the reply first (or press {self._deny_keys()} to deny).", severity="warning")
            return
        self.dismiss(HandReply(text))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "write":
            self.action_write()
        elif event.button.id == "send":
            self.action_send()
        else:
            self.action_decide(event.button.id == "approve")
