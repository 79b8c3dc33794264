"""The model's SDK is imported when the user starts typing, not at boot.

openai alone is ~22 MB and ~0.4 s of imports here: an app left idle, or only read, never needs it.
The first key typed in any prompt starts the import on a thread, so by the time the prompt is sent
the import is done or well under way (the turn waits for it off the loop in any case, app/engine/
session.py); the provider's client is built and the reply's Markdown renderer imported on threads
after it. A key typed before boot knows the models starts it as soon as boot does.
"""

from __future__ import annotations

import asyncio


class SdkWarmup:
    """An App mixin: imports the default model's SDK on the first typed key (PromptInput.Echoed)."""

    _typed_before_ready = False  # a key came before boot had the models
    _sdk_warm_started = False

    def on_prompt_input_echoed(self) -> None:
        if self._sdk_warm_started:
            return
        if not self.ready.is_set() or self.models is None:  # type: ignore[attr-defined]
            self._typed_before_ready = True
            return
        self._sdk_warm_started = True
        self.run_worker(self._warm_sdk_import(), group="sdk", exit_on_error=False)  # type: ignore[attr-defined]

    def warm_sdk_if_typed(self) -> None:
        """Boot is done: start the import now if a key was typed while it ran."""
        if self._typed_before_ready:
            self.on_prompt_input_echoed()

    async def _warm_sdk_import(self) -> None:
        """Import the default model's SDK and build its client on a thread, so the first request does
        not stall the UI, then the reply's Markdown renderer (markdown-it, linkify, pygments: ~50 ms
        and 2 MB here), which the first reply would otherwise import on the UI thread as its first
        words arrive."""
        from app.providers.registry import prepare_off_loop

        await prepare_off_loop(self.models.provider(self.models.default))  # type: ignore[attr-defined]
        await asyncio.to_thread(_import_reply_renderer)


def _import_reply_renderer() -> None:
    import widgets.reply_markdown  # noqa: F401
