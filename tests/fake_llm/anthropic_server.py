"""A fake Anthropic Messages server: POST /v1/messages and GET /v1/models, over real HTTP.

The same scripted replies as the OpenAI fake (tests/fake_llm/script.py); `reasoning` in a
TextReply streams as a thinking block. Run standalone for manual trials and benchmarks:

    python -m tests.fake_llm.anthropic_server --port 8766 [--tokens N]

Point the SDK at `server.base_url` (no /v1: the SDK adds it).
"""

from __future__ import annotations

import argparse
import threading
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fake_llm.anthropic_chunks import message_body, resolve, sse_stream
from tests.fake_llm.openai_server import FakeOpenAIServer, _ClosingStream
from tests.fake_llm.script import EchoReply, ErrorReply, Reply, TokensReply
from tests.fake_llm.uvicorn_thread import UvicornThread, serve_until_interrupted

ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
               529: "overloaded_error"}


def error_response(reply: ErrorReply) -> Response:
    """The HTTP error in Anthropic's {"type": "error", "error": {...}} shape unless a body is given."""
    body = reply.body
    if body is None:
        kind = ERROR_TYPES.get(reply.status, "api_error")
        body = {"type": "error", "error": {"type": kind,
                                           "message": reply.message or f"fake error {reply.status}"}}
    if isinstance(body, str):
        return Response(body, status_code=reply.status, headers=reply.headers, media_type="text/plain")
    return JSONResponse(body, status_code=reply.status, headers=reply.headers)


class FakeAnthropicServer(FakeOpenAIServer):
    """Scripted Anthropic server on 127.0.0.1; the same knobs as FakeOpenAIServer (`cache_usage`
    is reported with each reply). `api_key`, when set, is checked against the x-api-key header."""

    def __init__(self, port: int = 0, *, models: tuple[str, ...] = ("fake-claude",),
                 default_reply: Reply | None = None, api_key: str | None = None) -> None:
        self.models = models
        self._defaults = (default_reply or EchoReply(), api_key, False, models)
        self._lock = threading.Lock()
        self._generation = 0
        self.reset()
        self.app = Starlette(routes=[
            Route("/v1/messages", self._messages, methods=["POST"]),
            Route("/v1/models", self._list_models, methods=["GET"]),
        ])
        self._runner = UvicornThread(self.app, port)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _list_models(self, request: Request) -> Response:
        data = [{"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
                for m in self.models]
        return JSONResponse({"data": data, "has_more": False, "first_id": None, "last_id": None})

    async def _messages(self, request: Request) -> Response:
        body: dict[str, Any] = await request.json()
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(dict(request.headers))
        reply: Reply
        if self.api_key is not None and request.headers.get("x-api-key") != self.api_key:
            reply = ErrorReply(401, "invalid x-api-key")
        else:
            reply = self._next_reply(body)
        if isinstance(reply, ErrorReply):
            return error_response(reply)
        reply = resolve(reply, body)
        if not body.get("stream"):
            return JSONResponse(message_body(reply, body, self.cache_usage))
        return _ClosingStream(self._tracked(sse_stream(reply, body, self.cache_usage)),
                              media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.fake_llm.anthropic_server",
                                     description="Fake Anthropic Messages server.")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--tokens", type=int, default=0, help="answer every request with N tokens")
    parser.add_argument("--paragraph-every", type=int, default=0, metavar="N",
                        help="with --tokens: end a paragraph every N tokens, as prose does")
    args = parser.parse_args(argv)
    default = TokensReply(count=args.tokens, paragraph_every=args.paragraph_every) if args.tokens else None
    serve_until_interrupted(FakeAnthropicServer(args.port, default_reply=default), "fake Anthropic server")


if __name__ == "__main__":
    main()
