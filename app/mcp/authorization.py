"""OAuth as the manager sees it: which auth a connection uses, the 'authorizing' status while a person
signs in (deadlines stop meanwhile), and why a sign-in failed.

A mixin of `McpManager`; the SDK-facing parts are in `app/mcp/oauth/flow.py` (imported on connect).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

from app.settings.mcp_oauth import effective_oauth
from app.mcp.oauth.store import TokenStore, token_path
from app.mcp.server_state import AUTHORIZING, CONNECTING, FAILED, READY, ServerState, describe_error

T = TypeVar("T")


class DeadlinePassed(TimeoutError):
    """A step of a connection took longer than its deadline (time spent signing in not counted)."""


class Deadline:
    """Calls `expire` after `seconds` of running time; `pause()` stops the clock while a person signs in."""

    def __init__(self, seconds: float, expire: Callable[[], None]) -> None:
        self._loop = asyncio.get_running_loop()
        self._left = seconds
        self._expire = expire
        self._handle: asyncio.TimerHandle | None = None
        self._since = 0.0
        self._done = False
        self.resume()

    def pause(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
            self._left -= self._loop.time() - self._since

    def resume(self) -> None:
        if self._handle is None and not self._done:
            self._since = self._loop.time()
            self._handle = self._loop.call_later(max(0.0, self._left), self._fire)

    def cancel(self) -> None:
        self._done = True
        self.pause()

    def _fire(self) -> None:
        self._done = True
        self._handle = None
        self._expire()


class Authorization:
    """Mixin: needs `data_dir`, `hooks`, `_set_status`, `_notify`, `_make_specs` and `generation`."""

    data_dir: Path | None

    def _auth_for(self, state: ServerState) -> Any:
        """The httpx auth for the next connection of an http/sse server (None when OAuth is off)."""
        config = state.config
        state.auth = None
        settings = None if config.inprocess is not None else effective_oauth(
            config.transport, config.oauth, config.headers)
        if settings is None or not config.url:
            return None
        if state.token_store is None or state.token_store.server_url != config.url:
            path = token_path(self.data_dir, config.name) if self.data_dir is not None else None
            state.token_store = TokenStore(path, config.url)
        from app.mcp.oauth.flow import build_auth

        if state.oauth_steps is None:
            from app.mcp.oauth.steps import OAuthSteps

            state.oauth_steps = OAuthSteps(on_change=lambda: self._notify(config.name, "oauth"))
        state.auth = build_auth(config.name, config.url, settings, state.token_store, self.hooks,
                                lambda waiting, detail: self._authorizing(state, waiting, detail), state.oauth_steps)
        return state.auth

    def _authorizing(self, state: ServerState, waiting: bool, detail: str) -> None:
        """A sign-in started (status 'authorizing', deadlines paused) or ended (`detail`: why, '' = done)."""
        if waiting:
            for deadline in state._deadlines:
                deadline.pause()
            if state.status != AUTHORIZING:
                state._status_before_auth = state.status
            self._set_status(state, AUTHORIZING, detail)
            return
        for deadline in state._deadlines:
            deadline.resume()
        if state.status != AUTHORIZING:
            return
        if state._status_before_auth == READY and state.client is not None:
            if detail:  # a re-authorization of a live connection failed: drop it, the supervisor says why
                self._set_status(state, FAILED, f"authorization failed: {detail}")
                state._closed.set()
                return
            state.specs = tuple(self._make_specs(state, state.tools))
            self.generation += 1
            self._set_status(state, READY)
            self._notify(state.name, "tools")
            return
        self._set_status(state, CONNECTING, "signed in" if not detail else f"authorization failed: {detail}")

    @staticmethod
    def _cancel_sign_in(state: ServerState, reason: str) -> None:
        """End a sign-in that waits for the browser now instead of at its deadline."""
        sign_in = getattr(state.auth, "sign_in", None)
        if sign_in is not None:
            sign_in.cancel(reason)

    def _auth_failure(self, state: ServerState) -> tuple[str, bool] | None:
        """(why the last authorization failed, whether retrying would prompt a person) — or None."""
        auth = state.auth
        if auth is None or auth.failure is None:
            return None
        failure = auth.failure  # the OAuth errors' own words read well; others get their type named
        words = str(failure).strip() if type(failure).__module__.startswith(("mcp.", "app.")) else ""
        return words or describe_error(failure), auth.interactive

    async def _within(self, state: ServerState, awaitable: Awaitable[T], seconds: float, *,
                      here: bool = False, on_expire: Callable[[], None] | None = None) -> T:
        """Await with a deadline that stops while a person signs in; DeadlinePassed after it.

        The awaitable runs in a task of its own, or with `here` in this task (the SDK Client must be
        entered in the task that exits it), which the deadline then cancels and un-cancels.
        `on_expire()` runs the moment the deadline passes (the cancelled work may take a while to unwind).
        """
        task = asyncio.current_task()
        assert task is not None
        work: asyncio.Future[T] | None = None if here else asyncio.ensure_future(awaitable)
        fired: list[bool] = []

        def expire() -> None:
            fired.append(True)
            if on_expire is not None:
                on_expire()
            (work or task).cancel()

        deadline = Deadline(seconds, expire)
        state._deadlines.add(deadline)
        try:
            return await (work if work is not None else awaitable)
        except asyncio.CancelledError:
            if not fired or (work is not None and task.cancelling()):
                raise
            if work is None:
                task.uncancel()
            raise DeadlinePassed(f"no answer within {seconds:g}s") from None
        finally:
            deadline.cancel()
            state._deadlines.discard(deadline)
            if work is not None and not work.done():
                work.cancel()

    def sign_out(self, server: str) -> bool:
        """Forget a server's stored tokens and registration; the next connection signs in afresh."""
        state = self._state(server)  # type: ignore[attr-defined]
        config = state.config
        if state.token_store is None and self.data_dir is not None and config.url:
            state.token_store = TokenStore(token_path(self.data_dir, config.name), config.url)
        return state.token_store.clear() if state.token_store is not None else False
