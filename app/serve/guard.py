"""Who may reach a served Whimbrel: the token, its cookie, the websocket's Origin.

The first request carries the token in its query (`/?token=…`, the URL `whimbrel serve` prints);
it is answered with a redirect to `/` that sets the token as an HttpOnly, SameSite=Strict cookie,
so the token leaves the address bar and no script can read it. Every later request (the page,
its script and styles, the websocket, downloads) needs that cookie; without it the answer is a
401 with a few words of plain text and nothing of the app. The websocket that starts an app
process must also come from the page's own origin (a page elsewhere cannot drive the app, even
in a browser that would send the cookie).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlencode

from aiohttp import web

UNAUTHORIZED = ("401 Unauthorized: this Whimbrel needs its token. Open the URL `whimbrel serve` printed "
                "(it ends in ?token=…).\n")
FOREIGN_ORIGIN = "403 Forbidden: requests (the websocket above all) must come from the page this server served.\n"
# No outside request from the page (textual-serve's page links a web font from Google: blocked),
# no framing (clickjacking), no referrer (the first URL carries the token).
SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'self'; script-src 'self' 'unsafe-inline'; "
                                "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; "
                                "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class TokenFileError(ValueError):
    """A --token-file that cannot be used (missing, unreadable, empty or too short)."""


def new_token() -> str:
    return secrets.token_urlsafe(32)


def read_token(path: Path) -> str:
    """The token in a file (its first line, stripped): at least 16 characters, or TokenFileError."""
    try:
        text = path.expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TokenFileError(f"--token-file {path}: {error.strerror if isinstance(error, OSError) else error}") from None
    token = text.strip().splitlines()[0].strip() if text.strip() else ""
    if len(token) < 16:
        raise TokenFileError(f"--token-file {path}: the token must be at least 16 characters (it has {len(token)})")
    return token


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL, lower case, without a default port."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host
    port = parts.port
    default = {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")


@dataclass(frozen=True)
class Guard:
    """The token and the one origin the page is served from (the public URL's)."""

    token: str
    public_url: str

    @property
    def cookie_name(self) -> str:
        port = urlsplit(self.public_url).port or ""
        return f"whimbrel_serve{port}"  # two servers on one host keep their own cookies

    @property
    def origin(self) -> str:
        return origin_of(self.public_url)

    def first_url(self) -> str:
        return f"{self.public_url.rstrip('/')}/?{urlencode({'token': self.token})}"

    def _matches(self, offered: str | None) -> bool:
        return bool(offered) and hmac.compare_digest(offered.encode(), self.token.encode())

    def middleware(self):
        """The aiohttp middleware that lets in only the token's holder (see the module's docstring)."""

        @web.middleware
        async def guard(request: web.Request, handler):
            response = await self._answer(request, handler)
            for name, value in SECURITY_HEADERS.items():
                response.headers.setdefault(name, value)
            return response

        return guard

    async def _answer(self, request: web.Request, handler) -> web.StreamResponse:
        if self._matches(request.cookies.get(self.cookie_name)):
            origin = request.headers.get("Origin")
            websocket = request.path == "/ws" or request.headers.get("Upgrade", "").lower() == "websocket"
            if (origin is not None or websocket) and (origin or "").lower() != self.origin:
                return web.Response(status=403, text=FOREIGN_ORIGIN)  # a websocket must name its origin
            return await handler(request)
        if request.method == "GET" and request.path == "/" and self._matches(request.query.get("token")):
            rest = {k: v for k, v in request.query.items() if k != "token"}
            response = web.HTTPSeeOther("/" + (f"?{urlencode(rest)}" if rest else ""))
            response.set_cookie(self.cookie_name, self.token, httponly=True, samesite="Strict", path="/",
                                secure=self.public_url.startswith("https:"))
            return response
        return web.Response(status=401, text=UNAUTHORIZED)
