"""The sign-in dialog of an MCP server that asks for OAuth: the address to open, with its host set apart.

The browser opens only when the user says so (on a thread: the UI never waits on it). The dialog
closes by itself when the sign-in ends (the browser came back, it was refused, or it timed out);
Esc cancels the sign-in. `authorization_hook(app)` is the manager's `ClientHooks.authorization`.
"""

from __future__ import annotations

import asyncio
import webbrowser
from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from widgets.key_hints import key_hint
from app.mcp.features import AuthorizationHook, AuthorizationRequest
from styles import STYLES_DIR
from widgets.url_block import url_block


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} seconds"


class McpSignInScreen(ModalScreen[None]):
    """One browser sign-in. `opener` opens the URL (tests pass their own)."""

    CSS_PATH = STYLES_DIR / "mcp_oauth.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel sign-in", id="mcp_oauth.cancel_sign_in"),
        Binding("c", "copy", "Copy URL", id="mcp_oauth.copy_url"),
    ]

    def __init__(self, request: AuthorizationRequest, opener: Callable[[str], Any] = webbrowser.open) -> None:
        super().__init__()
        self.request = request
        self.opener = opener

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="sign-in-dialog"):
            yield Static(Text(f"MCP server “{request.server}” needs you to sign in", style="bold"),
                         id="sign-in-heading")
            yield Static("Whimbrel opens this address in your browser. After you sign in there, the browser "
                         "comes back to Whimbrel and the server connects.", id="sign-in-message")
            with VerticalScroll(id="sign-in-url"):
                yield Static(url_block(request.url))
            yield Static(f"Waiting up to {_duration(request.timeout)} for the sign-in.", id="sign-in-status")
            with Horizontal(id="sign-in-buttons"):
                yield Button("Open browser", id="open", variant="primary")
                yield Button("Copy URL", id="copy")
                yield Button("Cancel", id="cancel", variant="error")
            yield Static(f"Enter opens the browser · {key_hint(self, 'mcp_oauth.copy_url')} copies the URL · "
                             f"{key_hint(self, 'mcp_oauth.cancel_sign_in')} cancels", id="sign-in-keys")

    def on_mount(self) -> None:
        self.query_one("#open", Button).focus()
        self.run_worker(self._close_when_finished(), exclusive=True, group="sign-in")

    async def _close_when_finished(self) -> None:
        await self.request.finished.wait()
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"open": self.action_open, "copy": self.action_copy, "cancel": self.action_cancel}[event.button.id or ""]()

    def action_open(self) -> None:
        self.query_one("#sign-in-status", Static).update(
            "Browser opened. Finish signing in there; this dialog closes by itself.")
        self.run_worker(asyncio.to_thread(self.opener, self.request.url), group="browser")

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.request.url)
        self.query_one("#sign-in-status", Static).update("URL copied. Paste it into a browser to sign in.")

    def action_cancel(self) -> None:
        self.request.cancel("cancelled in Whimbrel")
        self.dismiss(None)


def authorization_hook(app: Any, opener: Callable[[str], Any] = webbrowser.open) -> AuthorizationHook:
    """Show each sign-in in its own dialog; returns as soon as it is on screen."""
    async def authorize(request: AuthorizationRequest) -> None:
        app.push_screen(McpSignInScreen(request, opener=opener))
    return authorize
