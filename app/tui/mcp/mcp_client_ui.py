"""Requests from MCP servers in the app: elicitation forms and sampling approvals.

The manager's hooks (app/mcp/features.py) land here. A request belongs to the workstream whose
tool call on that server is running (app/mcp/callers.py), else to the focused one. It waits in
that workstream's `pending` list next to its tool approvals: a background tab shows its marker
and raises an alert, and the modal opens when the tab is focused (workspace_ops.open_waiting_approval),
never over another workstream. Every outcome is noted in that workstream's transcript.
"""

from __future__ import annotations

import asyncio
import webbrowser
from dataclasses import dataclass, field
from typing import Any, Callable

from app.mcp.features import (
    ClientHooks, Declined, ElicitationRequest, ElicitationResponse, SamplingRequest, SamplingResponse,
)


@dataclass(eq=False)
class PendingDialog:
    """A server request waiting in a workstream's `pending` list; `make_screen(title)` builds its modal,
    whose dismiss value resolves `future`."""

    make_screen: Callable[[str], Any]
    future: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


def browser_opener(app: Any) -> Callable[[str], bool]:
    """What opens a URL for the user, called from a worker thread: the system's browser for a terminal;
    in a browser (`whimbrel serve`) a new tab of the user's own browser, never one on the server."""
    def open_for_user(url: str) -> bool:
        if not app.is_web:
            return webbrowser.open(url)
        app.call_from_thread(app.open_url, url, new_tab=True)
        return True
    return open_for_user


class ClientRequestRouter:
    """Routes a server's elicitation and sampling requests to a workstream and waits for the user."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.opener: Callable[[str], Any] = browser_opener(app)  # URL elicitation (tests record instead)

    def hooks(self) -> ClientHooks:
        return ClientHooks(sampling=self.sample, elicitation=self.elicit)

    def target(self, callers: list[str]):
        """The workstream a request belongs to: its caller (the focused one among several), else the
        focused workstream; None before the workspace exists."""
        manager = self.app.manager
        if manager is None:
            return None
        open_callers = [w for w in (manager.get(c) for c in callers) if w is not None]
        focused = self.app.workstream
        if focused in open_callers or not open_callers:
            return focused
        return open_callers[0]  # the newest call

    async def _ask(self, workstream, make_screen: Callable[[str], Any], alert: str, *, from_call: bool) -> Any:
        """Queue a dialog on `workstream` and wait for its result (None when it was closed unanswered).

        A request that no workstream's tool call caused, arriving while another screen is up (the
        MCP inspector calling a tool by hand), opens over that screen at once instead.
        """
        app = self.app
        entry = PendingDialog(make_screen)
        if not from_call and app.screen is not app.main_screen:
            self._show_now(entry, workstream.name)
        else:
            workstream.pending.append(entry)
            entry.future.add_done_callback(lambda _f: self._drop(workstream, entry))
            if workstream.id != app.focused_id:
                app.attention.alert("Whimbrel", f"“{workstream.name}”: {alert}")
            app.workspace.refresh_chrome()
            app.workspace.open_waiting_approval()
        try:
            await asyncio.wait({entry.future})
        finally:
            if not entry.future.done():
                entry.future.cancel()  # the server withdrew the request: close the dialog
        return None if entry.future.cancelled() else entry.future.result()

    def _show_now(self, entry: PendingDialog, title: str) -> None:
        screen = entry.make_screen(title)

        def resolve(result: Any) -> None:
            if not entry.future.done():
                entry.future.set_result(result)

        def close_if_withdrawn(future: asyncio.Future) -> None:
            stack = self.app.screen_stack
            if future.cancelled() and stack and stack[-1] is screen:
                screen.dismiss(None)

        entry.future.add_done_callback(close_if_withdrawn)
        self.app.push_screen(screen, callback=resolve)

    def _drop(self, workstream, entry: PendingDialog) -> None:
        if entry in workstream.pending:
            workstream.pending.remove(entry)
        if self.app.is_running and self.app.screen_stack:  # not while the app shuts down
            self.app.workspace.refresh_chrome()

    @staticmethod
    def _note(workstream, text: str, level: str = "info") -> None:
        """A line in the workstream's transcript, so what was shared with a server stays visible."""
        from app.engine import events as ev

        workstream.session.emit(ev.Notice(text, level=level))  # type: ignore[arg-type]

    # -- the hooks -----------------------------------------------------------------------
    async def elicit(self, request: ElicitationRequest) -> ElicitationResponse:
        from app.tui.screens.elicitation import ElicitationScreen

        workstream = self.target(request.callers)
        if workstream is None:
            return ElicitationResponse("cancel")
        what = "asks you to open a link" if request.mode == "url" else "asks for input"
        response = await self._ask(workstream, lambda title: ElicitationScreen(request, title, opener=self.opener),
                                   f"MCP server “{request.server}” {what}", from_call=bool(request.callers))
        response = response or ElicitationResponse("cancel")
        if request.callers:  # (a call made by hand in the inspector is not the transcript's business)
            done = {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}[response.action]
            self._note(workstream, f"MCP server “{request.server}” {what}: you {done}.")
        return response

    async def sample(self, request: SamplingRequest) -> SamplingResponse:
        from app.engine.sampling import SamplingFailed, answer_sampling, model_label
        from app.tui.screens.sampling import HandReply, SamplingScreen

        workstream = self.target(request.callers)
        if workstream is None:
            raise Declined("Whimbrel is still starting up; sampling is not available yet.")
        model = model_label(workstream.session)
        approved = await self._ask(workstream, lambda title: SamplingScreen(request, model, title),
                                   f"MCP server “{request.server}” asks to use the model",
                                   from_call=bool(request.callers))
        if isinstance(approved, HandReply):
            if request.callers:
                self._note(workstream, f"You wrote MCP server “{request.server}” a reply by hand "
                                       f"({len(approved)} characters).")
            return SamplingResponse(str(approved), model="human (written in Whimbrel)")
        if not approved:
            if not model:
                raise Declined("Whimbrel has no model configured and the user wrote no reply.")
            self._note(workstream, f"You denied MCP server “{request.server}” a completion from {model}.")
            raise Declined(f"The user denied the sampling request (model {model}).")
        try:
            response = await answer_sampling(workstream.session, request)
        except SamplingFailed as error:
            self._note(workstream, f"Sampling for MCP server “{request.server}” failed: {error}", "error")
            raise
        self._note(workstream, f"MCP server “{request.server}” got a completion from {model} "
                               f"({len(response.text)} characters).")
        return response


def client_hooks(app: Any) -> ClientHooks:
    """The hooks for the app's MCP manager; the router stays on the app as `client_requests`."""
    router = getattr(app, "client_requests", None)
    if router is None:
        router = app.client_requests = ClientRequestRouter(app)
    return router.hooks()
