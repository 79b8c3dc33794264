"""What every SDK-backed provider shares: the lazily created client, closing it, streaming chunks
and one-shot requests.

The SDK is imported when the client is first needed (never at app startup), and the client is built
on a worker thread before a request needs it (`prepare`). Subclasses say how to build their client
in `_new_client()`.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from types import ModuleType
from typing import Any, AsyncIterator, Callable, Iterable, Protocol

from app.providers.base import ModelSettings, ProviderError
from app.providers.errors import ErrorWording, cut_stream, to_provider_error
from app.providers.sse import stream_events


class EventTranslator(Protocol):
    """Turns one API's decoded stream events into chunks and knows whether the stream ended properly."""

    complete: bool  # the API's end marker arrived
    end_marker: str  # that marker, in words, for the error when it never does

    def translate(self, event: dict[str, Any]) -> Iterable[Any]: ...


class SdkClientProvider:
    """A provider holding one SDK client, created on first use; `close()` releases its HTTP pool."""

    settings: ModelSettings
    _client: Any = None
    _building: Any = None  # the asyncio task building the client off the loop (`prepare`)

    def _new_client(self) -> Any:
        raise NotImplementedError

    @property
    def client(self) -> Any:
        """The SDK client, created (and its SDK imported) on first use."""
        if self._client is None:
            self._client = self._new_client()
        return self._client

    async def prepare(self) -> None:
        """Build the client on a worker thread, if there is none yet (app/providers/registry.py,
        `prepare_off_loop`); a caller that comes while one is being built waits for that one (the
        first key typed starts it, and Enter may come before it is done). Never raises: a client that
        cannot be built is left to the request, which reports why in the provider's words."""
        if self._client is not None:
            return
        if self._building is None:
            self._building = asyncio.ensure_future(self._build_off_loop())
        await asyncio.shield(self._building)  # a cancelled caller leaves the build to the others

    async def _build_off_loop(self) -> None:
        try:
            client = await asyncio.to_thread(self._new_client)
        except Exception:  # noqa: BLE001 - the request builds it again and says what is wrong
            return
        finally:
            self._building = None
        if self._client is None:
            self._client = client
        else:  # a request built one on the loop meanwhile: keep that one
            await client.close()

    async def _chunks(self, create: Callable[..., Any], kwargs: dict[str, Any], sdk: ModuleType,
                      wording: ErrorWording, translator: EventTranslator) -> AsyncIterator[Any]:
        """Stream `create(**kwargs, stream=True)` (an SDK `with_streaming_response` method) as
        normalized chunks, `translator.translate(event)` per decoded event; the stream is closed
        however this ends. A body that ends before the translator saw its end marker is cut short."""
        events = stream_events(lambda: create(**kwargs, stream=True), self.settings, sdk, wording)
        async with aclosing(events):
            async for event in events:
                for chunk in translator.translate(event):
                    yield chunk
        if not translator.complete:
            raise cut_stream(self.settings, translator.end_marker)

    async def _create(self, create: Callable[..., Any], kwargs: dict[str, Any], sdk: ModuleType,
                      wording: ErrorWording) -> Any:
        """The result of one non-streamed `create(**kwargs)`; SDK errors become ProviderErrors, and so
        does a reply that is not the API's JSON (the SDKs hand such a body back as a plain string)."""
        try:
            result = await create(**kwargs)
        except sdk.APIError as exc:
            raise to_provider_error(exc, self.settings, sdk, wording) from exc
        if isinstance(result, (str, bytes)):
            raise ProviderError(f"{self.settings.model}: the server's reply was not the API's JSON "
                                f"(it sent {len(result)} characters of something else)", retryable=False)
        return result

    async def close(self) -> None:
        """Close the HTTP client, if one was created."""
        if self._client is not None:
            await self._client.close()
            self._client = None


def openai_client(settings: ModelSettings) -> Any:
    """An `AsyncOpenAI` for `settings`; retries are the engine's, so the SDK makes none."""
    from openai import AsyncOpenAI

    return AsyncOpenAI(base_url=settings.base_url, api_key=settings.api_key or "not-needed",
                       max_retries=0, timeout=settings.timeout)
