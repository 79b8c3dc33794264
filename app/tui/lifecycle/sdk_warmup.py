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
    """Imports the default model's SDK on the first typed key. The App holds one and hands it each
    PromptInput.Echoed; it reads the App's `ready` event and `models`, and runs its worker there."""

    def __init__(self, app) -> None:
        self.app = app
        self.typed_before_ready = False  # a key came before boot had the models
        self.started = False

    def key_typed(self) -> None:
        """A key was typed in a prompt: start the import, or remember it for when boot has the models."""
        if self.started:
            return
        if not self.app.ready.is_set() or self.app.models is None:
            self.typed_before_ready = True
            return
        self.started = True
        self.app.run_worker(self.warm(), group="sdk", exit_on_error=False)

    def boot_done(self) -> None:
        """Boot is done: start the import now if a key was typed while it ran."""
        if self.typed_before_ready:
            self.key_typed()

    async def warm(self) -> None:
        """Import the default model's SDK and build its client on a thread, so the first request does
        not stall the UI, then the reply's Markdown renderer (markdown-it, linkify, pygments: ~50 ms
        and 2 MB here), which the first reply would otherwise import on the UI thread as its first
        words arrive."""
        from app.providers.registry import prepare_off_loop

        models = self.app.models
        await prepare_off_loop(models.provider(models.default))
        await asyncio.to_thread(_import_reply_renderer)


def _import_reply_renderer() -> None:
    import widgets.reply_markdown  # noqa: F401
