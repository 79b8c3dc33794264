"""Server-sent events read straight off an SDK's raw streaming response, as plain dicts.

The SDKs build a pydantic object per event; at thousands of tokens a second that costs more
CPU than everything else in a turn. Providers therefore send the request through the SDK's
`with_streaming_response` (its auth, base URL, headers, timeouts and status errors stay the
SDK's) and decode the body here: events are split on blank lines, `data:` lines joined and
parsed as JSON. Event names are not needed: every API we speak repeats the type in the data.
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from types import ModuleType
from typing import Any, AsyncIterator, Callable

from app.providers.base import ModelSettings, ProviderError
from app.providers.errors import ErrorWording, to_provider_error

DONE = object()  # the `data: [DONE]` sentinel of OpenAI chat completions


def decode_event(block: bytes) -> Any:
    """One event's lines -> its JSON data, DONE, or None (comments, keep-alives, no data)."""
    data = [line[5:] for line in block.split(b"\n") if line.startswith(b"data:")]
    if not data:
        return None
    payload = b"\n".join(d[1:] if d.startswith(b" ") else d for d in data)
    if payload.strip() == b"[DONE]":
        return DONE
    return json.loads(payload) if payload.strip() else None


async def sse_events(chunks: AsyncIterator[bytes],
                     on_done: Callable[[], None] | None = None) -> AsyncIterator[dict[str, Any]]:
    """Decode a byte stream of server-sent events into JSON objects, until the body or [DONE] ends.

    `on_done()` is called when [DONE] arrives (so a caller can tell it from a body cut short).
    CRLF and CR line ends are accepted (a CR that ends a read waits for the next one, in case
    its LF follows). Raises ValueError on data that is not JSON.
    """
    buffer = b""
    async for chunk in chunks:
        buffer += chunk
        if b"\r" in buffer:
            held = b"\r" if buffer.endswith(b"\r") else b""
            buffer = buffer[:len(buffer) - len(held)].replace(b"\r\n", b"\n").replace(b"\r", b"\n") + held
        *blocks, buffer = buffer.split(b"\n\n")
        for block in blocks:
            event = decode_event(block)
            if event is DONE:
                if on_done is not None:
                    on_done()
                return
            if isinstance(event, dict):
                yield event
    event = decode_event(buffer.replace(b"\r", b""))
    if isinstance(event, dict):
        yield event


async def stream_events(open_stream: Callable[[], AbstractAsyncContextManager[Any]], settings: ModelSettings,
                        sdk: ModuleType, wording: ErrorWording,
                        reopen_after: Callable[[Exception], bool] | None = None,
                        on_done: Callable[[], None] | None = None) -> AsyncIterator[dict[str, Any]]:
    """Send the request (`open_stream()`: an SDK `with_streaming_response.create(...)`) and yield its events.

    SDK, timeout, transport and decoding errors become ProviderErrors. When `reopen_after(exc)`
    says so, a request the server rejected is sent once more (e.g. without an option it refused).
    `on_done()` is called if the server ends the stream with [DONE].
    The HTTP response is closed when the generator ends, fails or is closed.
    """
    import httpx2

    try:
        try:
            context = open_stream()
            response = await context.__aenter__()
        except sdk.APIError as exc:
            if reopen_after is None or not reopen_after(exc):
                raise
            context = open_stream()
            response = await context.__aenter__()
    except sdk.APIError as exc:
        raise to_provider_error(exc, settings, sdk, wording) from exc
    try:
        async for event in sse_events(response.iter_bytes(), on_done):
            yield event
    except sdk.APIError as exc:
        raise to_provider_error(exc, settings, sdk, wording) from exc
    except httpx2.TimeoutException as exc:
        raise to_provider_error(sdk.APITimeoutError(request=exc.request), settings, sdk, wording) from exc
    except httpx2.TransportError as exc:
        raise to_provider_error(sdk.APIConnectionError(request=exc.request), settings, sdk, wording) from exc
    except ValueError as exc:  # not JSON: a broken proxy or server
        raise ProviderError(f"{settings.model}: the server sent a malformed stream ({exc})",
                            retryable=False) from exc
    finally:
        await context.__aexit__(None, None, None)
