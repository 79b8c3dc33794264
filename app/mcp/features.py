"""Client features the app plugs in: sampling and elicitation hooks, in Whimbrel's own terms.

The hooks receive plain dataclasses (no SDK types), so the UI can implement them without
importing `mcp`. A hook refuses by raising `Declined(message)`; the server gets that message.
The defaults refuse sampling and decline elicitation, each with a clear message.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal


class Declined(Exception):
    """Raised by a hook to refuse a request; the message goes back to the server."""


@dataclass
class SamplingRequest:
    """A server asks the client's model for a completion. `messages`: [{"role", "text"}]."""

    server: str
    messages: list[dict[str, str]]
    system_prompt: str | None = None
    max_tokens: int = 1000
    temperature: float | None = None
    stop_sequences: list[str] = field(default_factory=list)
    model_hints: list[str] = field(default_factory=list)
    include_context: str | None = None
    callers: list[str] = field(default_factory=list)  # see ElicitationRequest


@dataclass
class SamplingResponse:
    text: str
    model: str = "whimbrel"
    stop_reason: str = "endTurn"


@dataclass
class ElicitationRequest:
    """A server asks the user for input: a form (`schema` is the requested JSON schema) or a URL."""

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    schema: dict[str, Any] = field(default_factory=dict)
    url: str | None = None
    elicitation_id: str | None = None
    # Workstreams with a tool call running on this server when the request came (app/mcp/callers.py):
    # one when known exactly, several (newest first) when ambiguous, none when no call was running.
    callers: list[str] = field(default_factory=list)


@dataclass
class ElicitationResponse:
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


@dataclass
class AuthorizationRequest:
    """A server needs a browser sign-in (OAuth): show `url` to the user and open it in a browser.

    The sign-in ends when the browser comes back to Whimbrel's localhost callback, or after `timeout`
    seconds; then `finished` is set and `outcome` says why it ended ("" when signed in), so a dialog
    can close itself. `cancel(reason)` abandons the sign-in (the user closed the dialog).
    """

    server: str
    url: str
    timeout: float
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    cancel: Callable[[str], None] = field(default=lambda reason: None, repr=False)
    outcome: str = ""


SamplingHook = Callable[[SamplingRequest], Awaitable[SamplingResponse]]
ElicitationHook = Callable[[ElicitationRequest], Awaitable[ElicitationResponse]]
AuthorizationHook = Callable[[AuthorizationRequest], Awaitable[None]]
SAMPLING_DECLINED = ("Whimbrel declined the sampling request: no model is connected to MCP sampling "
                     "for this server (the user has not approved it).")


async def decline_sampling(request: SamplingRequest) -> SamplingResponse:
    raise Declined(SAMPLING_DECLINED)


async def decline_elicitation(request: ElicitationRequest) -> ElicitationResponse:
    raise Declined("no one was asked: nothing here can show it to a person (no interactive frontend)")


async def decline_authorization(request: AuthorizationRequest) -> None:
    raise Declined("sign-in needed, but nothing here can show a sign-in page (no interactive frontend)")


def schema_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """The `default` of each property of a requested form schema (SEP-1034)."""
    props = schema.get("properties") or {}
    return {name: prop["default"] for name, prop in props.items()
            if isinstance(prop, dict) and "default" in prop}


async def accept_defaults(request: ElicitationRequest) -> ElicitationResponse:
    """An elicitation hook that accepts with the schema's defaults (headless runs, conformance)."""
    if request.mode == "url":
        return ElicitationResponse("decline")
    return ElicitationResponse("accept", schema_defaults(request.schema))


@dataclass
class ClientHooks:
    """What the manager asks the app for. `sampling`/`elicitation` may be replaced at any time."""

    sampling: SamplingHook = decline_sampling
    elicitation: ElicitationHook = decline_elicitation
    authorization: AuthorizationHook = decline_authorization  # returns once the URL is shown/opened
    sampling_enabled: bool = True     # advertise the capability (the hook may still decline)
    elicitation_enabled: bool = True
    roots_enabled: bool = True        # advertise roots: a server may then ask for them at any time (and some wait for the answer)
