"""A tool that needs a browser step first (MCP error -32042): the user is asked, the call is sent
again once the server reports the step complete; a decline or no completion gives the model words."""

from __future__ import annotations

import asyncio
import sys
import urllib.request
from pathlib import Path

import pytest

import app.mcp.url_elicitation as url_elicitation
from app.mcp.config import ServerConfig
from app.mcp.features import ClientHooks, ElicitationResponse
from app.mcp.manager import McpManager
from app.mcp.url_elicitation import steps_from_error
from tools.context import ToolContext
from tools.errors import ToolError


HERE = Path(__file__).resolve().parent


async def run_with(answer: str, *, signs_in: bool = True):
    """Call the tool through its Whimbrel spec with a user who answers `answer` (and, on accept, signs
    in through the link unless `signs_in` is False); (the tool's result or ToolError, what they saw)."""
    asked = []

    async def elicitation(request):
        asked.append(request)
        if answer == "accept" and signs_in:  # the browser opens the page
            await asyncio.to_thread(lambda: urllib.request.urlopen(request.url, timeout=10).read())
        return ElicitationResponse(answer)

    args = [str(HERE / "browser_step_server.py")]
    manager = McpManager([ServerConfig("steps", command=sys.executable, args=args)], refresh_interval=0,
                         workspace=HERE, hooks=ClientHooks(elicitation=elicitation))
    manager.start()
    try:
        await manager.wait_ready("steps", 30)
        spec = next(s for s in manager.tool_specs() if s.name == "mcp__steps__private_files")
        try:
            result = await spec.implementation({}, ToolContext(workspace=HERE))
        except ToolError as error:
            result = error
        return result, asked
    finally:
        await manager.stop()


async def test_after_the_browser_step_the_call_is_sent_again_and_answers():
    result, asked = await run_with("accept")
    assert result == "3 private files (call 2)"  # sent again, once
    assert [(r.mode, r.elicitation_id, r.server, r.message) for r in asked] == [
        ("url", "auth-1", "steps", "Sign in to your file store")]
    assert asked[0].url.startswith("http://127.0.0.1:") and asked[0].url.endswith("/authorize?id=auth-1")


@pytest.mark.parametrize("answer", ["decline", "cancel"])
async def test_a_user_who_says_no_leaves_the_model_a_clear_error(answer):
    result, asked = await run_with(answer)
    assert isinstance(result, ToolError)
    verb = "declined" if answer == "decline" else "cancelled"
    assert str(result) == (f"MCP server 'steps' needs the user to open {asked[0].url} "
                           f"before tools/call private_files; the user {verb}.")


async def test_a_step_never_finished_ends_the_wait(monkeypatch):
    monkeypatch.setattr(url_elicitation, "COMPLETION_TIMEOUT", 0.3)
    result, asked = await run_with("accept", signs_in=False)
    assert isinstance(result, ToolError)
    assert str(result) == ("MCP server 'steps' did not see the browser step for tools/call private_files done "
                           "within 0.3s; ask the user to finish it and try again.")
    assert len(asked) == 1  # asked once, not again on every retry


async def test_a_completion_notification_sends_the_request_again_at_once(monkeypatch):
    """Protocol 2025-11-25 servers say when the step is done: no need to wait for the next retry."""
    monkeypatch.setattr(url_elicitation, "RETRY_FIRST", 30.0)
    completions = url_elicitation.Completions()
    done = asyncio.Event()
    sent = []
    data = {"elicitations": [{"mode": "url", "message": "m", "url": "https://a.example/x", "elicitationId": "e1"}]}

    async def ask(request):
        asyncio.get_running_loop().call_later(0.05, lambda: (done.set(), completions.completed("e1")))
        return ElicitationResponse("accept")

    async def resend():
        sent.append(done.is_set())
        if not done.is_set():
            raise url_elicitation.UrlElicitationNeeded(data)
        return "served"

    started = asyncio.get_running_loop().time()
    result = await url_elicitation.serve_after_browser_steps("s", "tools/call t", data, resend, completions,
                                                             ask, [])
    assert result == "served" and sent == [True]
    assert asyncio.get_running_loop().time() - started < 5


def test_malformed_elicitations_in_the_error_are_skipped():
    data = {"elicitations": [
        {"mode": "url", "message": "ok", "url": "https://a.example/x", "elicitationId": "e1"},
        {"mode": "url", "message": "no id", "url": "https://b.example/"},
        {"mode": "url", "message": "no url", "elicitationId": "e3"},
        "not a dict",
    ]}
    assert [(s.url, s.elicitation_id) for s in steps_from_error(data)] == [("https://a.example/x", "e1")]
    assert steps_from_error(None) == [] and steps_from_error({"elicitations": "x"}) == []
