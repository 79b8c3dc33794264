"""Completion list shown above the prompt while an `@path` mention is being typed; Tab completes."""

from __future__ import annotations

import asyncio
import time

from rich.text import Text
from textual.widgets import Static

from app.mentions.files import mention_at_end

SHOWN = 8
FRESH_FOR = 5.0  # seconds a listing of the workspace is reused when a new mention starts


class MentionSuggestions(Static):
    """Matching workspace paths for the `@word` at the end of the prompt; hidden otherwise."""

    DEFAULT_CSS = """
    MentionSuggestions { height: auto; max-height: 10; padding: 0 1; background: $panel; }
    """

    def __init__(self) -> None:
        super().__init__(classes="mention-suggestions")
        self.matches: list[str] = []
        self.query_text: str | None = None
        self.display = False
        self._listed_at = 0.0
        self._listing = False

    def update_for(self, text: str) -> None:
        """Follow the prompt's text: show matches while it ends in a mention being typed."""
        query = mention_at_end(text) if "\n" not in text[-200:].split("@")[-1] else None
        starting = query is not None and self.query_text is None
        self.query_text = query
        holder = getattr(self.app, "mention_index", None)
        if query is None or holder is None:
            self.matches, self.display = [], False
            return
        if starting and time.monotonic() - self._listed_at > FRESH_FOR:
            self._list_workspace(holder)
        if holder.index is None:
            self.matches = []
            self._show(Text("Listing the workspace's files…", style="dim"))
            return
        from app.mentions.resources import matching_resources

        files = holder.index.match(query, limit=SHOWN * 4)
        resources = matching_resources(getattr(getattr(self.app, "mcp", None), "manager", None), query, SHOWN * 4)
        self.matches = resources + files if ":" in query else files + resources
        body = Text()
        for number, path in enumerate(self.matches[:SHOWN]):
            if number:
                body.append("\n")
            body.append(f"@{path}", style="bold" if number == 0 else "")
        if not self.matches:
            body.append(f"no file or folder matches @{query}", style="dim")
        elif len(self.matches) > SHOWN:
            body.append(f"\n… more: keep typing (Tab completes the first)", style="dim")
        self._show(body)

    def _show(self, body: Text) -> None:
        self.update(body)
        self.display = True

    def _list_workspace(self, holder) -> None:
        if self._listing:
            return
        self._listing = True
        self.run_worker(self._build(holder), group="mention-index", exit_on_error=False)

    async def _build(self, holder) -> None:
        try:
            await asyncio.to_thread(holder.build)
            self._listed_at = time.monotonic()
        finally:
            self._listing = False
        prompt = self.parent.query_one("PromptInput") if self.parent is not None else None
        if prompt is not None and self.query_text is not None:
            self.update_for(prompt.text)

    def completion(self, text: str) -> str | None:
        """`text` with the mention being typed replaced by the first match (a file gets a space)."""
        query = mention_at_end(text)
        if query is None or not self.matches:
            return None
        first = self.matches[0]
        return text[: len(text) - len(query)] + first + ("" if first.endswith("/") else " ")
