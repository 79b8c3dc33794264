"""Requests a server will only serve after the user finished something in a browser (MCP -32042).

A server may answer a request with error -32042 (URL elicitation required) listing one or more URL
elicitations: "sign in to your files at https://…". Each one is put to the user through the same
hook as a URL elicitation request (the host shown prominently, the browser opened only after they
confirm). Then the request is sent again: at once when the server reports the step complete
(`notifications/elicitation/complete`, protocol 2025-11-25; later versions dropped it), else after
a short, growing pause, until it is served or COMPLETION_TIMEOUT has passed. A request the server
refuses with -32042 did nothing, so sending it again is safe. A decline, a cancel or the timeout
ends the request with words for the model instead.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from app.mcp.features import Declined, ElicitationRequest, ElicitationResponse

URL_ELICITATION_REQUIRED = -32042
COMPLETION_TIMEOUT = 300.0  # seconds to wait for the server to see the browser step done
RETRY_FIRST = 1.0  # without a completion notification, send the request again after this long ...
RETRY_MAX = 8.0  # ... doubling up to this


@dataclass
class UrlStep:
    """One URL elicitation listed in a -32042 error."""

    message: str
    url: str
    elicitation_id: str


class UrlElicitationNeeded(Exception):
    """A request was refused (again) until the user completes browser steps; `data` is the error's."""

    def __init__(self, data: Any) -> None:
        super().__init__("URL elicitation required")
        self.steps = steps_from_error(data)


class BrowserStepFailed(Exception):
    """The browser steps were declined, cancelled or never completed; the message is for the model."""


def steps_from_error(data: Any) -> list[UrlStep]:
    """The URL elicitations in a -32042 error's `data` (malformed entries are skipped)."""
    raw = data.get("elicitations") if isinstance(data, dict) else None
    steps: list[UrlStep] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        url, elicitation_id = item.get("url"), item.get("elicitationId") or item.get("elicitation_id")
        if isinstance(url, str) and url and isinstance(elicitation_id, str) and elicitation_id:
            steps.append(UrlStep(str(item.get("message") or ""), url, elicitation_id))
    return steps


@dataclass
class Completions:
    """Per server: which URL elicitations it has reported complete, and who waits for them."""

    _events: dict[str, asyncio.Event] = field(default_factory=dict)

    def _event(self, elicitation_id: str) -> asyncio.Event:
        return self._events.setdefault(elicitation_id, asyncio.Event())

    def completed(self, elicitation_id: str) -> None:
        """The server sent notifications/elicitation/complete for this id."""
        self._event(elicitation_id).set()

    async def wait(self, ids: list[str], timeout: float) -> bool:
        """True once every id is reported complete; False after `timeout` seconds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        for elicitation_id in ids:
            event = self._event(elicitation_id)
            if event.is_set():
                continue
            try:
                await asyncio.wait_for(event.wait(), max(0.0, end - loop.time()))
            except (TimeoutError, asyncio.TimeoutError):
                return False
        return True

    def forget(self, ids: set[str]) -> None:
        for i in ids:
            self._events.pop(i, None)


async def _ask(server: str, what: str, steps: list[UrlStep],
               ask: Callable[[ElicitationRequest], Awaitable[ElicitationResponse]], callers: list[str]) -> str | None:
    """Put each step to the user; None when all were accepted, else why not (for the model)."""
    for step in steps:
        request = ElicitationRequest(server=server, message=step.message or f"{server} needs you to open a page",
                                     mode="url", url=step.url, elicitation_id=step.elicitation_id,
                                     callers=callers)
        try:
            response = await ask(request)
        except Declined as refused:
            return (f"MCP server '{server}' needs the user to open {step.url} before {what}, but {refused}; "
                    f"open it in a browser and try again.")
        if response.action != "accept":
            verb = "declined" if response.action == "decline" else "cancelled"
            return (f"MCP server '{server}' needs the user to open {step.url} before {what}; "
                    f"the user {verb}.")
    return None


async def serve_after_browser_steps(server: str, what: str, error_data: Any, resend: Callable[[], Awaitable[Any]],
                                    completions: Completions,
                                    ask: Callable[[ElicitationRequest], Awaitable[ElicitationResponse]],
                                    callers: list[str]) -> Any:
    """The result of a request refused with -32042 (`error_data`), once its browser steps are done.

    `resend()` sends the request again and raises `UrlElicitationNeeded` while it is still refused.
    Raises `BrowserStepFailed` with words for the model when the user says no or time runs out.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + COMPLETION_TIMEOUT
    asked: set[str] = set()
    steps, pause = steps_from_error(error_data), RETRY_FIRST
    try:
        while True:
            if not steps:
                raise BrowserStepFailed(f"MCP server '{server}' needs a browser step before {what}, "
                                        f"but sent no usable link.")
            new = [step for step in steps if step.elicitation_id not in asked]
            if new:
                problem = await _ask(server, what, new, ask, callers)
                if problem is not None:
                    raise BrowserStepFailed(problem)
                asked.update(step.elicitation_id for step in new)
            left = deadline - loop.time()
            if left <= 0:
                raise BrowserStepFailed(f"MCP server '{server}' did not see the browser step for {what} "
                                        f"done within {COMPLETION_TIMEOUT:g}s; ask the user to finish it "
                                        f"and try again.")
            await completions.wait([step.elicitation_id for step in steps], min(pause, left))
            pause = min(pause * 2, RETRY_MAX)
            try:
                return await resend()
            except UrlElicitationNeeded as still:
                steps = still.steps
    finally:
        completions.forget(asked)
