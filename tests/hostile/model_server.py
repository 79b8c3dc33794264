"""A fault-injecting model server on 127.0.0.1: OpenAI chat, Responses and Anthropic Messages,
one misbehaviour per keyword, so the real SDKs meet each failure over a real socket.

A request's behaviour is its `X-Hostile` header or, failing that, the first word of its last
user message, so one server serves a whole test (a turn "500" fails, the next turn "hi" works):

    500      HTTP 500 (a server error: retried, counted by circuit breakers)
    429      HTTP 429 with `Retry-After: 0`
    cut      some text, then the body ends: no finish reason and no [DONE] (chat), no
             message_delta / message_stop (Anthropic), no response.completed (Responses)
    hang     the stream starts (its first event), then nothing more until the client gives up
    garbage  the first event, then data that is not JSON
    escape   a reply full of terminal escape sequences (window title, clear screen, clipboard)
    slow     the echo, two characters every 0.2 s
    other    the echo ("You said: …"): a well-behaved reply

Every request gets a stream, even one that asked for a single JSON body (the SDKs then hand back
the raw text: a reply that is not the API's JSON). The well-formed parts come from tests/fake_llm (the same wire shapes the fake servers send);
this module only decides which part to break. Standalone, for trying the app by hand:

    python -m tests.hostile.model_server --port 8767
"""

from __future__ import annotations

import argparse
import asyncio
import threading
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fake_llm import anthropic_chunks, openai_chunks, responses_chunks
from tests.fake_llm.anthropic_server import error_response as anthropic_error
from tests.fake_llm.openai_server import _ClosingStream
from tests.fake_llm.openai_server import error_response as openai_error
from tests.fake_llm.script import EchoReply, ErrorReply, Reply, TextReply, last_user_text
from tests.fake_llm.uvicorn_thread import ServedOnThread, UvicornThread, serve_until_interrupted

BEHAVIOURS = ("500", "429", "cut", "hang", "garbage", "escape", "slow")
CUT_TEXT = "This reply stops in the middle of a sen"
ESCAPE_TEXT = ("Title \x1b]0;PWNED\x07 wipe \x1b[2J\x1b[H clipboard \x1b]52;c;cHduZWQ=\x07 "
               "red \x1b[31mRED\x1b[0m bell \x07 end")
NOT_JSON = b"event: content_block_delta\ndata: {this is not json\n\n"


@dataclass(frozen=True)
class Wire:
    """One API's wire format: its well-formed stream, its error shape, and where `cut` stops."""

    stream: Callable[[Any, dict[str, Any]], AsyncIterator[bytes]]
    error: Callable[[ErrorReply], Response]
    user_text: Callable[[dict[str, Any]], str]
    cut_before: bytes  # the first part containing this is the end marker a cut stream never sends


CHAT = Wire(openai_chunks.sse_stream, openai_error, lambda body: last_user_text(body.get("messages", [])),
            b'"finish_reason":"')
ANTHROPIC = Wire(anthropic_chunks.sse_stream, anthropic_error,
                 lambda body: last_user_text(body.get("messages", [])), b"event: message_delta")
RESPONSES = Wire(responses_chunks.sse_stream, openai_error, responses_chunks.last_input_text,
                 b"event: response.completed")


def behaviour_of(request: Request, user_text: str) -> str:
    """The keyword that picks this request's misbehaviour ("" for a well-behaved echo)."""
    header = request.headers.get("x-hostile", "").strip().lower()
    if header:
        return header
    words = user_text.split()
    return words[0].lower() if words and words[0].lower() in BEHAVIOURS else ""


class HostileModelServer(ServedOnThread):
    """Serves /v1/chat/completions, /v1/responses, /v1/messages and /v1/models on 127.0.0.1.

    `seen` lists each request's keyword ("" for the echo), in order; `hanging` counts the
    requests stuck in `hang` right now (a test waits for it before cancelling).
    OpenAI clients use `base_url`; Anthropic clients use `anthropic_url` (the SDK adds /v1).
    """

    def __init__(self, port: int = 0) -> None:
        self._lock = threading.Lock()
        self.reset()
        self.app = Starlette(routes=[
            Route("/v1/chat/completions", self._route(CHAT), methods=["POST"]),
            Route("/v1/responses", self._route(RESPONSES), methods=["POST"]),
            Route("/v1/messages", self._route(ANTHROPIC), methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
        ])
        self._runner = UvicornThread(self.app, port)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reset(self) -> None:
        """Forget what earlier tests sent (streams still hanging from them are not counted)."""
        with self._lock:
            self.seen: list[str] = []
            self.hanging = 0
            self._generation = getattr(self, "_generation", 0) + 1

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [
            {"id": "hostile-model", "object": "model", "created": 0, "owned_by": "hostile"}]})

    def _route(self, wire: Wire) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            body = await request.json()
            keyword = behaviour_of(request, wire.user_text(body))
            with self._lock:
                self.seen.append(keyword)
            if keyword in ("500", "429"):
                status = int(keyword)
                headers = {"retry-after": "0"} if status == 429 else {}
                return wire.error(ErrorReply(status, f"hostile {status}", headers=headers))
            return _ClosingStream(self._body(wire, keyword, body), media_type="text/event-stream",
                                  headers={"Cache-Control": "no-cache"})
        return handle

    def _body(self, wire: Wire, keyword: str, body: dict[str, Any]) -> AsyncIterator[bytes]:
        user_text = wire.user_text(body)
        if keyword == "cut":
            return _until(wire.stream(TextReply(CUT_TEXT), body), wire.cut_before)
        if keyword == "escape":
            return wire.stream(TextReply(ESCAPE_TEXT), body)
        if keyword == "hang":
            return self._hang(wire.stream(TextReply(""), body))
        if keyword == "garbage":
            return _then(wire.stream(TextReply(""), body), NOT_JSON)
        reply: Reply = EchoReply(delay=0.2, chunk_size=2) if keyword == "slow" else EchoReply()
        return wire.stream(reply.as_text(user_text), body)

    async def _hang(self, parts: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """The first event of a stream, then silence until the client disconnects."""
        yield await anext(parts)
        with self._lock:
            generation = self._generation
            self.hanging += 1
        try:
            await asyncio.Event().wait()
        finally:
            with self._lock:
                if generation == self._generation:
                    self.hanging -= 1


async def _until(parts: AsyncIterator[bytes], marker: bytes) -> AsyncIterator[bytes]:
    """The parts of a stream up to (not including) the first one holding `marker`."""
    async for part in parts:
        if marker in part:
            return
        yield part


async def _then(parts: AsyncIterator[bytes], tail: bytes) -> AsyncIterator[bytes]:
    """The first part of a stream, then `tail`, then the end of the body."""
    yield await anext(parts)
    yield tail


def main(argv: list[str] | None = None) -> None:
    """Serve in the foreground until Ctrl+C."""
    parser = argparse.ArgumentParser(prog="python -m tests.hostile.model_server",
                                     description="Fault-injecting model server (see the module docstring).")
    parser.add_argument("--port", type=int, default=8767)
    serve_until_interrupted(HostileModelServer(parser.parse_args(argv).port), "hostile model server")


if __name__ == "__main__":
    main()
