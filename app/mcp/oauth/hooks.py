"""Ready-made `ClientHooks.authorization` hooks: the command line's (print the URL, open the browser) and
a headless one that plays the browser for tests and the conformance suite.
"""

from __future__ import annotations

import asyncio
import sys
import webbrowser
from typing import TextIO
from urllib.parse import urljoin, urlsplit

from app.mcp.features import AuthorizationRequest, Declined
from app.mcp.oauth.callback import HOST


def browser_hook(stream: TextIO | None = None, open_browser: bool = True):
    """Print the sign-in URL (stderr by default) and open it in the default browser."""
    async def authorize(request: AuthorizationRequest) -> None:
        out = stream or sys.stderr
        print(f"MCP server '{request.server}' needs you to sign in. Opening your browser; if it does not "
              f"open, visit:\n  {request.url}\n(waiting up to {request.timeout:g}s)", file=out, flush=True)
        if open_browser:
            await asyncio.to_thread(webbrowser.open, request.url)
    return authorize


async def follow_headless(request: AuthorizationRequest) -> None:
    """Fetch the authorization URL without a browser and follow its redirects to the localhost callback.

    Works with authorization servers that approve at once (test servers); one that shows a login page
    cannot be signed in to this way, which ends the sign-in with a clear reason.
    """
    import httpx2

    url = request.url
    async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as client:
        for _ in range(10):
            response = await client.get(url)
            target = urlsplit(url)
            if target.hostname == HOST and response.status_code < 300:
                return  # the callback took the code
            location = response.headers.get("location")
            if response.status_code not in (301, 302, 303, 307, 308) or not location:
                raise Declined(f"the authorization page answered HTTP {response.status_code} instead of "
                               f"redirecting back (it needs a person)")
            url = urljoin(url, location)
    raise Declined("too many redirects on the way to the sign-in callback")
