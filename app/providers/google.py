"""Google Gemini through its OpenAI-compatible endpoint.

The chat-completions wire format is the same, so this is the OpenAI provider with Google's
base URL and key (GEMINI_API_KEY) as defaults; `reasoning_effort` maps to Gemini's thinking.
"""

from __future__ import annotations

import dataclasses
import os

from app.providers.base import ModelSettings
from app.providers.openai_chat import OpenAIChatProvider

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta/openai/"


class GoogleProvider(OpenAIChatProvider):
    """Gemini models over https://generativelanguage.googleapis.com/v1beta/openai/."""

    name = "google"

    def __init__(self, settings: ModelSettings) -> None:
        settings = dataclasses.replace(
            settings,
            base_url=settings.base_url or GEMINI_BASE_URL,
            api_key=settings.api_key if settings.api_key not in (None, "", "not-needed")
            else os.environ.get("GEMINI_API_KEY") or settings.api_key,
        )
        super().__init__(settings)
