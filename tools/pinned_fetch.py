"""An HTTP GET that cannot be turned against the local network: each hop's host is resolved once,
the address checked by `AddressPolicy` and pinned for the connection (no second lookup), redirects
are followed by hand and checked again, and the body is streamed under a size cap and a deadline."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from typing import Awaitable, Callable
from urllib.parse import urljoin, urlsplit, urlunsplit

from tools.address_policy import AddressPolicy
from tools.errors import ToolError

Resolver = Callable[[str, int], Awaitable[list[str]]]
MAX_REDIRECTS = 5
USER_AGENT = "Whimbrel/0.1 (web_fetch; +https://example.invalid/whimbrel)"


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses of `host`, as the OS resolves them."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [info[4][0] for info in infos]


@dataclass
class Fetched:
    url: str
    status: int
    content_type: str
    body: bytes
    truncated: bool
    redirects: list[str]


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 5_000_000
    timeout: float = 30.0


@dataclass(frozen=True)
class WebAccess:
    """What the web tools may reach and how much they read; `resolver` is the DNS seam tests use."""

    policy: AddressPolicy = AddressPolicy()
    limits: FetchLimits = FetchLimits()
    resolver: Resolver = system_resolver


async def destination_refusal(url: str, web: WebAccess) -> str | None:
    """Why fetching `url` would be refused at its first hop (its scheme, or where its host resolves),
    else None; a host that does not resolve is left for the fetch to report. Asked before anyone is
    asked to approve the fetch, so nobody approves a call that cannot run; the fetch checks again."""
    try:
        await _pin(url, web.policy, web.resolver)
    except ToolError as error:
        return None if str(error).startswith("could not resolve") else str(error)
    return None


async def _pin(url: str, policy: AddressPolicy, resolve: Resolver) -> tuple[str, str, str]:
    """(url with the checked address as host, the Host header, the name for TLS) for one hop."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(f"web_fetch only fetches http:// and https:// URLs, not {url!r}")
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        literal = ipaddress.ip_address(host)
        addresses = [str(literal)]
    except ValueError:
        try:
            addresses = await resolve(host, port)
        except OSError as exc:
            raise ToolError(f"could not resolve {host}: {exc}") from None
    if not addresses:
        raise ToolError(f"could not resolve {host}: no addresses")
    for address in addresses:  # every answer must pass: a mixed answer is a rebinding trick
        reason = policy.refusal(host, ipaddress.ip_address(address.split("%")[0]))
        if reason:
            raise ToolError(f"Refused to fetch {url}: {reason}.")
    pinned = addresses[0]
    netloc_host = f"[{pinned}]" if ":" in pinned else pinned
    netloc = f"{netloc_host}:{port}"
    host_header = host if parts.port is None else f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, "")), host_header, host


async def fetch(url: str, policy: AddressPolicy, limits: FetchLimits = FetchLimits(),
                resolve: Resolver = system_resolver) -> Fetched:
    """GET `url` safely (see the module docstring); raises ToolError with the reason on refusal."""
    try:
        return await asyncio.wait_for(_fetch(url, policy, limits, resolve), limits.timeout)
    except asyncio.TimeoutError:
        raise ToolError(f"{url} did not finish within {limits.timeout:g} s (a slow or endless response); "
                        f"nothing was kept") from None


async def _fetch(url: str, policy: AddressPolicy, limits: FetchLimits, resolve: Resolver) -> Fetched:
    import httpx2  # lazy: heavy, and only web tools need it

    redirects: list[str] = []
    async with httpx2.AsyncClient(follow_redirects=False, trust_env=False, timeout=limits.timeout) as client:
        current = url
        while True:
            try:
                pinned, host_header, tls_name = await _pin(current, policy, resolve)
            except ToolError as exc:
                if not redirects:
                    raise
                raise ToolError(f"{url} redirected to {current}, which was refused: "
                                f"{str(exc).split(': ', 1)[-1]}") from None
            request = client.build_request("GET", pinned, headers={"Host": host_header, "User-Agent": USER_AGENT,
                                                                   "Accept": "text/html, text/plain, */*"},
                                           extensions={"sni_hostname": tls_name})
            try:
                response = await client.send(request, stream=True)
            except httpx2.HTTPError as exc:
                raise ToolError(f"could not fetch {current}: {exc or type(exc).__name__}") from None
            try:
                if response.is_redirect and "location" in response.headers:
                    if len(redirects) >= MAX_REDIRECTS:
                        raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times")
                    current = urljoin(current, response.headers["location"])
                    redirects.append(current)
                    continue
                body, truncated = await _read_capped(response, limits.max_bytes)
            finally:
                await response.aclose()
            return Fetched(current, response.status_code, response.headers.get("content-type", ""), body,
                           truncated, redirects)


async def _read_capped(response, max_bytes: int) -> tuple[bytes, bool]:
    """Read at most `max_bytes` of the body; the rest is never downloaded."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        room = max_bytes - size
        if len(chunk) >= room:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False
