"""Transcript entries: the user's message, the assistant's streamed reply, notices."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Static


class UserMessage(Static):
    """What the user sent, shown as plain text (no Markdown surprises)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="user-message")


class Notice(Static):
    """A one-line info, warning or error: retries, finish reasons, failures."""

    def __init__(self, text: str, level: str = "info") -> None:
        icon = {"info": "ℹ", "warning": "⚠", "error": "✖"}.get(level, "ℹ")
        super().__init__(f"{icon} {text}", markup=False, classes=f"notice -{level}")


class ReasoningBlock(Collapsible):
    """The model's reasoning: dim, collapsed once the answer starts."""

    def __init__(self, text: str = "", *, collapsed: bool = False) -> None:
        self._body = Static(text, markup=False, classes="reasoning-text")
        super().__init__(self._body, title="Reasoning", collapsed=collapsed, classes="reasoning")
        self._text = text

    def append(self, text: str) -> None:
        self._text += text
        self._body.update(self._text)


class AssistantMessage(Vertical):
    """One model response. Content streams through Textual's MarkdownStream (no full re-render per token)."""

    def __init__(self, content: str = "", reasoning: str = "") -> None:
        super().__init__(classes="assistant-message")
        self._initial_content = content
        self._initial_reasoning = reasoning
        self._stream = None
        self.reasoning: ReasoningBlock | None = None
        self.content = ""

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown  # deferred: markdown-it costs startup time before any reply

        if self._initial_reasoning:
            self.reasoning = ReasoningBlock(self._initial_reasoning, collapsed=True)
            yield self.reasoning
        yield Markdown(self._initial_content, classes="assistant-markdown")
        self.content = self._initial_content

    @property
    def markdown(self):
        from textual.widgets import Markdown

        return self.query_one(Markdown)

    async def append_content(self, text: str) -> None:
        if self.reasoning is not None and not self.reasoning.collapsed and not self.content:
            self.reasoning.collapsed = True
        self.content += text
        if self._stream is None:
            self._stream = self.markdown.get_stream(self.markdown)
        await self._stream.write(text)

    async def append_reasoning(self, text: str) -> None:
        if self.reasoning is None:
            self.reasoning = ReasoningBlock()
            await self.mount(self.reasoning, before=self.markdown)
        self.reasoning.append(text)

    async def finish(self) -> None:
        """Flush the stream; the widget then holds the final Markdown.

        Stopping a MarkdownStream mid-append can race its last appends, so the final text is
        checked against what was received and set whole if they differ.
        """
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
            if self.markdown.source.rstrip() != self.content.rstrip():
                await self.markdown.update(self.content)


class CompactionBlock(Collapsible):
    """A compaction in the transcript: collapsed, titled with what it replaced; expands to the summary."""

    def __init__(self, summary: str, messages_summarized: int, tokens_before: int, *, auto: bool,
                 focus: str = "") -> None:
        how = "automatically" if auto else "on request"
        about = f", focus: {focus}" if focus else ""
        title = (f"Context compacted {how}: {messages_summarized} messages "
                 f"({tokens_before:,} tokens) summarized{about}")
        super().__init__(Static(summary, markup=False, classes="compaction-summary"), title=title,
                         collapsed=True, classes="compaction")
