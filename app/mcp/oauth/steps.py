"""Each step of an OAuth sign-in as it happens, for the inspector's OAuth view: metadata discovery,
registration, authorization in the browser, the token exchange and refreshes, with the request sent
and the answer received (secrets redacted), so a server's auth can be debugged.

`GuardedAuth` records every request its provider sends and every answer; `SignIn` records the browser
steps. Plain data, no SDK import: the UI reads `OAuthSteps.steps`.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import parse_qsl, urlencode, urlsplit

SECRET_KEYS = {"access_token", "refresh_token", "id_token", "code", "code_verifier", "client_secret",
               "client_assertion", "assertion", "subject_token", "registration_access_token"}
SECRET_HEADERS = {"authorization", "cookie", "set-cookie"}
BODY_LIMIT = 4000


@dataclass
class OAuthStep:
    """One step: `stage` (what it is for), an HTTP exchange (`method`, `url`, `status`, bodies) or a
    browser step (`method` BROWSER), and when."""

    at: float
    stage: str
    method: str
    url: str
    status: int | None = None
    request: str = ""
    response: str = ""
    note: str = ""

    def ok(self) -> bool | None:
        return None if self.status is None else 200 <= self.status < 400


def _redact_value(value: Any) -> str:
    text = str(value)
    return f"(redacted, {len(text)} characters)" if text else ""


def redact(data: Any) -> Any:
    """The JSON value with every secret field replaced by its length."""
    if isinstance(data, dict):
        return {k: _redact_value(v) if k in SECRET_KEYS else redact(v) for k, v in data.items()}
    if isinstance(data, list):
        return [redact(v) for v in data]
    return data


def _body(content: bytes, content_type: str) -> str:
    """A request or response body for reading: JSON and forms pretty and redacted, else text."""
    if not content:
        return ""
    text = content[:BODY_LIMIT * 2].decode("utf-8", "replace")
    if "json" in content_type:
        try:
            return json.dumps(redact(json.loads(text)), indent=2, ensure_ascii=False)[:BODY_LIMIT]
        except ValueError:
            pass
    if "x-www-form-urlencoded" in content_type:
        pairs = [(k, _redact_value(v) if k in SECRET_KEYS else v) for k, v in parse_qsl(text)]
        return "\n".join(f"{k} = {v}" for k, v in pairs)[:BODY_LIMIT]
    return text[:BODY_LIMIT]


def redact_url(url: str) -> str:
    """A URL with secret query parameters (code, state kept) replaced."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    query = urlencode([(k, _redact_value(v) if k in SECRET_KEYS else v) for k, v in parse_qsl(parts.query)])
    return parts._replace(query=query).geturl()


def _headers(headers: Any) -> str:
    return "\n".join(f"{k}: {_redact_value(v) if k.lower() in SECRET_HEADERS else v}" for k, v in headers.items())


def stage_of(method: str, url: str, form: dict[str, str], status: int | None) -> str:
    """What a request of the auth flow is for, in words."""
    path = urlsplit(url).path
    if "/.well-known/oauth-protected-resource" in path:
        return "discovery: protected resource metadata"
    if "/.well-known/oauth-authorization-server" in path or "/.well-known/openid-configuration" in path:
        return "discovery: authorization server metadata"
    grant = form.get("grant_type", "")
    if method == "POST" and grant == "authorization_code":
        return "token exchange (authorization code)"
    if method == "POST" and grant == "refresh_token":
        return "refresh"
    if method == "POST" and grant:
        return f"token ({grant.rsplit(':', 1)[-1]})"
    if method == "POST" and re.search(r"/register/?$", path):
        return "registration"
    return "MCP request: sign-in needed" if status == 401 else "MCP request"


def _sent(request: Any) -> bytes:
    try:
        return bytes(request.content)
    except Exception:  # noqa: BLE001 - a streamed body is not read here
        return b""


def _form(request: Any) -> dict[str, str]:
    if "x-www-form-urlencoded" not in request.headers.get("content-type", ""):
        return {}
    return dict(parse_qsl(_sent(request).decode("utf-8", "replace")))


@dataclass
class OAuthSteps:
    """The steps of one server's sign-ins, newest last; `on_change()` is called after each."""

    steps: deque[OAuthStep] = field(default_factory=lambda: deque(maxlen=200))
    on_change: Callable[[], None] = lambda: None

    @staticmethod
    def is_step(request: Any, response: Any, *, auth_only: bool = False) -> bool:
        """Whether `exchange` would record this request (see there)."""
        if not auth_only:
            return True
        form = _form(request)
        return stage_of(request.method, str(request.url), form, getattr(response, "status_code", None)) \
            != "MCP request"

    def exchange(self, request: Any, response: Any, *, auth_only: bool = False) -> bool:
        """One HTTP request of the flow and its answer (httpx2 Request/Response); True when recorded.

        `auth_only` skips a plain MCP request that went through (every request passes the auth flow;
        only the ones of a sign-in or refresh are steps)."""
        content_type = request.headers.get("content-type", "")
        sent = _sent(request)
        form = _form(request)
        status = getattr(response, "status_code", None)
        stage = stage_of(request.method, str(request.url), form, status)
        if auth_only and stage == "MCP request":
            return False
        try:
            answer = bytes(response.content) if response is not None else b""
        except Exception:  # noqa: BLE001 - the body was not read (a streamed MCP answer)
            answer = b""
        request_text = "\n\n".join(t for t in (_headers(request.headers), _body(sent, content_type)) if t)
        answer_text = ""
        if response is not None:
            answer_text = "\n\n".join(t for t in (_headers(response.headers),
                                                  _body(answer, response.headers.get("content-type", ""))) if t)
        self.add(OAuthStep(time.time(), stage, request.method, redact_url(str(request.url)), status, request_text,
                           answer_text))
        return True

    def browser(self, stage: str, url: str, note: str = "") -> None:
        self.add(OAuthStep(time.time(), stage, "BROWSER", redact_url(url), note=note))

    def add(self, step: OAuthStep) -> None:
        self.steps.append(step)
        try:
            self.on_change()
        except Exception:  # noqa: BLE001 - a view must never break a sign-in
            pass
