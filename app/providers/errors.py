"""SDK exceptions -> ProviderError, shared by every provider.

The openai and anthropic SDKs raise exceptions with the same class names (APITimeoutError,
APIConnectionError, APIStatusError with `status_code`, `body` and `response`), so one mapping
serves both; the SDK module is passed in, so neither SDK is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

from app.providers.base import ModelSettings, ProviderError


@dataclass(frozen=True)
class ErrorWording:
    """What differs per backend in the messages: its name and where its key comes from."""

    service: str = "the OpenAI API"  # "connection to <service> failed" when no base URL is set
    key_hint: str = "check the API key"
    url_hint: str = "check the model name and base URL"


def server_detail(exc: Any) -> str:
    """The server's own error text: `{"error": {"message"}}`, `{"message"}`, `{"detail"}` or a text body."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str) and error["message"]:
            return error["message"]
        for key in ("message", "detail", "error"):
            if isinstance(body.get(key), str) and body[key]:
                return body[key]
    if isinstance(body, str) and body.strip():
        return body.strip()[:500]
    return ""


def retry_after(exc: Any) -> float | None:
    """Seconds from the response's retry-after-ms / Retry-After header, or None."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return max(0.0, float(value) / divisor)
            except ValueError:
                continue
    return None


def _with_detail(head: str, detail: str) -> str:
    return f"{head} ({detail})" if detail else head


def status_error(status: int, detail: str, settings: ModelSettings, wording: ErrorWording,
                 wait: float | None = None) -> ProviderError:
    """The ProviderError for an HTTP status (or an in-band error mapped to one)."""
    suffix = f": {detail}" if detail else ""
    if status == 429:
        return ProviderError(f"rate limited (429){suffix}", retryable=True, status=status, retry_after=wait)
    if status == 529:
        return ProviderError(f"the server is overloaded (529){suffix}", retryable=True, status=status,
                             retry_after=wait)
    if status >= 500 or status in (408, 409):
        return ProviderError(f"server error {status}{suffix}", retryable=True, status=status,
                             retry_after=wait)
    if status == 401:
        return ProviderError(_with_detail(f"authentication failed (401): {wording.key_hint}", detail),
                             retryable=False, status=status)
    if status == 403:
        return ProviderError(_with_detail("permission denied (403): the key may lack access to this model",
                                          detail), retryable=False, status=status)
    if status == 404:
        return ProviderError(_with_detail(f"model '{settings.model}' not found (404): {wording.url_hint}",
                                          detail), retryable=False, status=status)
    label = "bad request" if status == 400 else "request failed"
    return ProviderError(f"{label} ({status}){suffix}", retryable=False, status=status)


def cut_stream(settings: ModelSettings, marker: str) -> ProviderError:
    """The error for a stream whose body ended before its end marker: the reply is incomplete.

    Retryable: before any text arrives the request is simply sent again; after it, the retry
    logic keeps the partial reply (marked interrupted) rather than replaying it.
    """
    return ProviderError(f"{settings.model}: the connection closed before the reply was complete "
                         f"(the stream ended without {marker})", retryable=True)


def to_provider_error(exc: Exception, settings: ModelSettings, sdk: ModuleType,
                      wording: ErrorWording = ErrorWording()) -> ProviderError:
    """Map an exception of SDK module `sdk` (openai or anthropic) to a ProviderError a user can act on."""
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderError(f"request timed out after {settings.timeout:g} s", retryable=True)
    if isinstance(exc, sdk.APIConnectionError):
        return ProviderError(f"connection to {settings.base_url or wording.service} failed", retryable=True)
    if not isinstance(exc, sdk.APIStatusError):
        text = getattr(exc, "message", None) or str(exc)
        return ProviderError(f"the server reported an error: {text}", retryable=False)
    return status_error(exc.status_code, server_detail(exc), settings, wording, retry_after(exc))
