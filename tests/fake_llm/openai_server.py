"""A fake OpenAI-compatible server: POST /v1/chat/completions, POST /v1/responses, GET /v1/models.

Tests queue scripted replies and read back the request bodies; the real openai SDK talks
to it over a socket. Run standalone for manual trials and benchmarks:

    python -m tests.fake_llm.openai_server --port 8765 [--script FILE.json] [--tokens N]
"""

from __future__ import annotations

import argparse
import json
import threading
from collections import deque
from typing import Any, AsyncIterator, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.fake_llm import responses_chunks
from tests.fake_llm.openai_chunks import completion_body, resolve, sse_stream
from tests.fake_llm.script import EchoReply, ErrorReply, Reply, TokensReply, reply_from_dict
from tests.fake_llm.uvicorn_thread import ServedOnThread, UvicornThread, serve_until_interrupted


class _ClosingStream(StreamingResponse):
    """Closes its body generator as soon as the response ends, so an abort is seen at once."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.body_iterator.aclose()  # type: ignore[attr-defined]


def error_response(reply: ErrorReply) -> Response:
    """The HTTP error for `reply`, in OpenAI's {"error": {...}} shape unless a body is given."""
    body = reply.body
    if body is None:
        kind = "rate_limit_error" if reply.status == 429 else (
            "server_error" if reply.status >= 500 else "invalid_request_error")
        body = {"error": {"message": reply.message or f"fake error {reply.status}",
                          "type": kind, "param": None, "code": None}}
    if isinstance(body, str):
        return Response(body, status_code=reply.status, headers=reply.headers,
                        media_type="text/plain")
    return JSONResponse(body, status_code=reply.status, headers=reply.headers)


class FakeOpenAIServer(ServedOnThread):
    """Scripted OpenAI server on 127.0.0.1: chat completions and the Responses API.

    - `queue(*replies)`: the next requests (of either API) get these, in order; then
      `default_reply` (echo).
    - `requests` / `request_headers`: every request body and its headers, in order.
    - `completed` / `aborted`: streams that ran to [DONE] / were cut off by the client.
    - `api_key`: when set, other bearer tokens get a real-looking 401.
    - `reject_stream_options`: answer 400 to requests carrying `stream_options`,
      as some local servers do.
    - `cache_usage` = (cache read, cache write) tokens reported with each Responses reply.
    - `answer_aside(matches, reply)`: requests whose body `matches` get `reply` and leave the queue
      alone (an agent's side requests, such as the title a third-party agent asks for meanwhile).
    """

    default_reply: Reply
    api_key: str | None
    reject_stream_options: bool

    def __init__(self, port: int = 0, *, models: tuple[str, ...] = ("fake-model",),
                 default_reply: Reply | None = None, api_key: str | None = None,
                 reject_stream_options: bool = False) -> None:
        self.models = models
        self._defaults = (default_reply or EchoReply(), api_key, reject_stream_options, models)
        self._lock = threading.Lock()
        self._generation = 0
        self.reset()
        self.app = Starlette(routes=[
            Route("/v1/chat/completions", self._chat, methods=["POST"]),
            Route("/v1/responses", self._responses, methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
        ])
        self._runner = UvicornThread(self.app, port)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reset(self) -> None:
        """Forget queued replies, recorded requests and counters; restore the options.

        Streams still running from before are no longer counted, so one server can be
        shared by many tests.
        """
        with self._lock:
            self.default_reply, self.api_key, self.reject_stream_options, self.models = self._defaults
            self.requests: list[dict[str, Any]] = []
            self.request_headers: list[dict[str, str]] = []
            self.completed = 0
            self.aborted = 0
            self.cache_usage: tuple[int, int] = (0, 0)
            self._replies: deque[Reply] = deque()
            self._asides: list[tuple[Callable[[dict[str, Any]], bool], Reply]] = []
            self._generation += 1

    def queue(self, *replies: Reply) -> None:
        """Append replies for the coming requests."""
        with self._lock:
            self._replies.extend(replies)

    def answer_aside(self, matches: Callable[[dict[str, Any]], bool], reply: Reply) -> None:
        """Requests whose body `matches` get `reply` (every time), without taking from the queue."""
        with self._lock:
            self._asides.append((matches, reply))

    def pending(self) -> int:
        """How many queued replies are still unused."""
        with self._lock:
            return len(self._replies)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            for matches, reply in self._asides:
                if matches(body):
                    return reply
            return self._replies.popleft() if self._replies else self.default_reply

    def _auth_error(self, request: Request) -> ErrorReply | None:
        if self.api_key is None:
            return None
        if request.headers.get("authorization") == f"Bearer {self.api_key}":
            return None
        return ErrorReply(401, body={"error": {
            "message": "Incorrect API key provided.", "type": "invalid_request_error",
            "param": None, "code": "invalid_api_key"}})

    async def _models(self, request: Request) -> Response:
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.models]
        return JSONResponse({"object": "list", "data": data})

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(dict(request.headers))
        failure = self._auth_error(request)
        if failure is None and self.reject_stream_options and "stream_options" in body:
            failure = ErrorReply(400, "Unrecognized request argument supplied: stream_options")
        reply = failure or self._next_reply(body)
        if isinstance(reply, ErrorReply):
            return error_response(reply)
        reply = resolve(reply, body)
        if not body.get("stream"):
            return JSONResponse(completion_body(reply, body))
        return _ClosingStream(self._tracked(sse_stream(reply, body)),
                              media_type="text/event-stream",
                              headers={"Cache-Control": "no-cache"})

    async def _responses(self, request: Request) -> Response:
        """POST /v1/responses: the same scripted replies as Responses API events."""
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(dict(request.headers))
        reply = self._auth_error(request) or self._next_reply(body)
        if isinstance(reply, ErrorReply):
            return error_response(reply)
        reply = responses_chunks.resolve(reply, body)
        if not body.get("stream"):
            return JSONResponse(responses_chunks.response_body(reply, body, self.cache_usage))
        return _ClosingStream(self._tracked(responses_chunks.sse_stream(reply, body, self.cache_usage)),
                              media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    async def _tracked(self, parts: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """Pass `parts` through, counting whether the stream finished or was aborted."""
        finished = False
        generation = self._generation
        try:
            async for part in parts:
                yield part
            finished = True
        finally:
            with self._lock:
                if generation == self._generation:
                    self.completed += finished
                    self.aborted += not finished


def load_script(path: str) -> list[Reply]:
    """Replies from a JSON file holding a list of reply objects."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, list):
        raise SystemExit(f"{path}: expected a JSON list of replies")
    return [reply_from_dict(item) for item in data]


def main(argv: list[str] | None = None) -> None:
    """Serve in the foreground until Ctrl+C."""
    parser = argparse.ArgumentParser(prog="python -m tests.fake_llm.openai_server",
                                     description="Fake OpenAI-compatible chat server.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--script", help="JSON list of replies served in order, then echo")
    parser.add_argument("--tokens", type=int, metavar="N",
                        help="after the script, stream N tokens as fast as possible")
    parser.add_argument("--paragraph-every", type=int, default=0, metavar="N",
                        help="with --tokens: end a paragraph every N tokens, as prose does")
    parser.add_argument("--reject-stream-options", action="store_true")
    args = parser.parse_args(argv)
    default = TokensReply(count=args.tokens, paragraph_every=args.paragraph_every) if args.tokens else None
    server = FakeOpenAIServer(args.port, default_reply=default,
                              reject_stream_options=args.reject_stream_options)
    if args.script:
        server.queue(*load_script(args.script))
    serve_until_interrupted(server, "fake OpenAI server")


if __name__ == "__main__":
    main()
