"""Transcript entries: the user's message, the assistant's streamed reply, notices."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from widgets.markdown_split import safe_cut

PART_CHARS = 2000  # a streamed part is closed at the first safe cut after this many characters


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
    """One model response, streamed through Textual's MarkdownStream (no full re-render per token).

    A long reply is split into parts: once the Markdown being streamed holds PART_CHARS characters,
    the next safe cut (see widgets/markdown_split.py) closes it and a new Markdown part is mounted
    after it in the transcript. Each frame then lays out only the growing part, not the whole reply.
    """

    DEFAULT_CSS = "AssistantMessage { height: auto; }"

    def __init__(self, content: str = "", reasoning: str = "") -> None:
        super().__init__(classes="assistant-message")
        self._initial_content = content
        self._initial_reasoning = reasoning
        self._stream = None
        self._live = None  # the Markdown being streamed into: the head's, then the newest part
        self._live_text = ""  # what that Markdown should hold
        self.parts: list[Widget] = []  # continuation parts, siblings after this widget
        self.reasoning: ReasoningBlock | None = None
        self.content = ""

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown  # deferred: markdown-it costs startup time before any reply

        if self._initial_reasoning:
            self.reasoning = ReasoningBlock(self._initial_reasoning, collapsed=True)
            yield self.reasoning
        yield Markdown(self._initial_content, classes="assistant-markdown")
        self.content = self._live_text = self._initial_content

    @property
    def markdown(self):
        from textual.widgets import Markdown

        return self.query_one(Markdown)

    @property
    def shown_text(self) -> str:
        """The Markdown source of the head and every part: the reply as displayed."""
        return "".join(part.source for part in [self.markdown, *self.parts])

    async def append_content(self, text: str) -> None:
        if self.reasoning is not None and not self.reasoning.collapsed and not self.content:
            self.reasoning.collapsed = True
        self.content += text
        if self._stream is None:
            self._live = self._live or self.markdown
            self._stream = self._live.get_stream(self._live)
        before = len(self._live_text)
        self._live_text += text
        cut = None
        if len(self._live_text) >= PART_CHARS and self.parent is not None:
            cut = safe_cut(self._live_text, max(before, 1))
        if cut is None:
            await self._stream.write(text)
            return
        if cut > before:
            await self._stream.write(self._live_text[before:cut])
        head, tail = self._live_text[:cut], self._live_text[cut:]
        await self._close_live(head)
        await self._open_part(tail)

    async def _close_live(self, text: str) -> None:
        """Stop streaming into the live Markdown and make sure it holds exactly `text`.

        Stopping a MarkdownStream mid-append can race its last appends, so the text is checked.
        """
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if self._live is not None and self._live.source.rstrip() != text.rstrip():
            await self._live.update(text)

    async def _open_part(self, text: str) -> None:
        """Mount a new Markdown part after the last one and stream `text` into it.

        The part starts empty and gets all its text through its stream: a Markdown built with
        text and then appended to re-parses from the wrong line (a streamed table can end up
        as a paragraph).
        """
        from textual.widgets import Markdown

        part = Markdown(classes="assistant-markdown assistant-part")
        part.message_index = getattr(self, "message_index", 0)  # type: ignore[attr-defined]
        await self.parent.mount(part, after=self.parts[-1] if self.parts else self)
        self.parts.append(part)
        self._live, self._live_text = part, text
        self._stream = part.get_stream(part)
        await self._stream.write(text)

    async def append_reasoning(self, text: str) -> None:
        if self.reasoning is None:
            self.reasoning = ReasoningBlock()
            await self.mount(self.reasoning, before=self.markdown)
        self.reasoning.append(text)

    async def finish(self) -> None:
        """Flush the stream; the widgets then hold the final Markdown."""
        await self._close_live(self._live_text)


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
