"""The line above the status bar while the team store's server does not answer: said, counted down, cleared.

Hidden while the store answers (always, on SQLite). While it does not, it says so with the store's
masked URL and the driver's reason (app/storage/reachability.py's StoreLink), when the next try is,
and what happens to what the user sends meanwhile; a timer redraws it each second, only then.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from app.vocabulary.inert import inert


def banner_text(link: Any) -> Text:
    """`⚠ Team store unreachable — retrying in 4s (why). …` for an unreachable StoreLink."""
    seconds = link.retry_in()
    when = "retrying now…" if not seconds else f"retrying in {seconds}s"
    text = Text()
    text.append(f"⚠ Team store unreachable — {when}", style="bold")
    text.append(f" ({inert(link.reason, multiline=False)})." if link.reason else ".")
    text.append(" Nothing is sent meanwhile: a prompt you send stays in the prompt box until the store is back.",
                style="italic")
    return text


class StoreBanner(Static):
    """Shows a StoreLink while it is unreachable; `show_link` is called at each of its changes."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._link: Any = None
        self._ticker: Timer | None = None

    def show_link(self, link: Any) -> None:
        self._link = link
        self._tick()

    def _tick(self) -> None:
        down = self._link is not None and not self._link.reachable
        self.display = down
        if down:
            self.update(banner_text(self._link))
        if down and self._ticker is None:
            self._ticker = self.set_interval(1.0, self._tick)
        elif not down and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
