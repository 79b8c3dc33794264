"""The elicitation modal: an MCP server asks the user for values (a form) or to visit a URL.

Form mode draws the requested schema as a form and checks it before accepting; URL mode shows the
address with its host set apart and opens the browser only after the user confirms (on a thread,
so the UI never waits on it). Dismisses with an ElicitationResponse: accept (typed content),
decline, or cancel (Esc).
"""

from __future__ import annotations

import webbrowser
from functools import partial
from typing import Any, Callable
from urllib.parse import urlsplit

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from widgets.key_hints import key_hint
from app.mcp.features import ElicitationRequest, ElicitationResponse
from app.mcp.schema_form import ANSWERS, collect, fields_from_schema
from styles import STYLES_DIR
from widgets.url_block import url_block
from widgets.schema_form import SchemaForm


def heading(kind: str, server: str, workstream_title: str) -> Text:
    """`MCP server “x” asks …  · in “workstream”`, shared by the elicitation and sampling modals."""
    text = Text()
    text.append(f"MCP server “{server}” {kind}", style="bold")
    if workstream_title:
        text.append(f"  · in “{workstream_title}”", style="dim")
    return text


class ElicitationScreen(ModalScreen[ElicitationResponse]):
    """One elicitation request. `opener` opens a URL in the browser (tests pass their own)."""

    CSS_PATH = STYLES_DIR / "client_requests.tcss"
    BINDINGS = [
        Binding("ctrl+s", "accept", "Accept", priority=True, id="elicitation.accept"),
        Binding("escape", "cancel", "Cancel", id="elicitation.cancel"),
    ]

    def __init__(self, request: ElicitationRequest, workstream_title: str = "",
                 opener: Callable[[str], Any] = webbrowser.open) -> None:
        super().__init__()
        self.request = request
        self.workstream_title = workstream_title
        self.opener = opener
        self.fields = fields_from_schema(request.schema, ANSWERS) if request.mode == "form" else []
        self.url_ok = request.mode == "url" and urlsplit(request.url or "").scheme in ("http", "https")

    def compose(self) -> ComposeResult:
        request = self.request
        asks = "asks you to open a link" if request.mode == "url" else "asks for input"
        with Vertical(id="client-request-dialog", classes="-elicitation"):
            yield Static(heading(asks, request.server, self.workstream_title), id="request-heading")
            yield Static(Text(request.message or "(no message)"), id="request-message")
            if request.mode == "url":
                yield Static(url_block(request.url or ""), id="elicit-url")
                with Horizontal(id="elicit-confirm"):
                    yield Static(Text("Open this address in your browser?"), id="elicit-confirm-text")
                    yield Button("Yes, open it", id="confirm-open", variant="warning")
                    yield Button("No", id="confirm-back")
            else:
                with VerticalScroll(id="request-body"):
                    yield SchemaForm(self.fields, empty="The server asks for no values: accept to confirm.")
            yield Static("", id="request-status")
            with Horizontal(id="request-buttons"):
                yield Button("Accept", id="accept", variant="primary")
                if request.mode == "url":
                    yield Button("Open in browser…", id="open", disabled=not self.url_ok)
                yield Button("Decline", id="decline", variant="error")
                yield Button("Cancel", id="cancel")
            cancel = f"[b]{key_hint(self, 'elicitation.cancel')}[/] cancel"
            keys = f"[b]{key_hint(self, 'elicitation.accept')}[/] accept   [b]Tab[/] next   {cancel}"
            yield Static(keys if request.mode == "form" else cancel, id="request-keys")

    def on_mount(self) -> None:
        self.call_after_refresh(self._focus_first)

    def _focus_first(self) -> None:
        inputs = self.query(".field-input")
        (inputs.first() if inputs else self.query_one("#accept", Button)).focus()

    # -- outcomes ------------------------------------------------------------------------
    def action_accept(self) -> None:
        if self.request.mode == "url":
            self.dismiss(ElicitationResponse("accept"))
            return
        form = self.query_one(SchemaForm)
        content, errors = collect(self.fields, form.raw_values())
        form.show_errors(errors)
        if errors:
            count = len(errors)
            self._status(f"{count} field{'s' if count > 1 else ''} need{'' if count > 1 else 's'} attention "
                         "before you can accept.", "bold red")
            return
        self.dismiss(ElicitationResponse("accept", content))

    def action_cancel(self) -> None:
        self.dismiss(ElicitationResponse("cancel"))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        match event.button.id:
            case "accept":
                self.action_accept()
            case "decline":
                self.dismiss(ElicitationResponse("decline"))
            case "cancel":
                self.action_cancel()
            case "open":
                self.query_one("#elicit-confirm").add_class("-shown")
                self.query_one("#confirm-back", Button).focus()
            case "confirm-open":
                self._open_url()
            case "confirm-back":
                self.query_one("#elicit-confirm").remove_class("-shown")
                self.query_one("#open", Button).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter moves on to the next field (Ctrl+S accepts)."""
        event.stop()
        self.focus_next()

    # -- URL mode ------------------------------------------------------------------------
    def _open_url(self) -> None:
        url = self.request.url or ""
        self.query_one("#elicit-confirm").remove_class("-shown")
        self.run_worker(partial(self._open_in_thread, url), thread=True, group="open-url", exit_on_error=False)
        self._status("Opening it in your browser… When you are done there, press Accept (or Cancel).", "bold")
        self.query_one("#accept", Button).focus()

    def _open_in_thread(self, url: str) -> None:
        try:
            opened = self.opener(url)
        except Exception as exc:  # noqa: BLE001 - a missing browser is a message, not a crash
            self.app.call_from_thread(self._status, f"Could not open a browser ({exc}); copy the URL instead.",
                                      "bold red")
            return
        if opened is False:
            self.app.call_from_thread(self._status, "No browser could be started here; copy the URL and open it "
                                      "yourself, then press Accept.", "bold yellow")

    def _status(self, message: str, style: str = "") -> None:
        self.query_one("#request-status", Static).update(Text(message, style=style))
