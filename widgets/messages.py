"""Transcript entries: the user's message, the assistant's streamed reply, notices."""

from __future__ import annotations

from typing import Callable

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from widgets.markdown_split import PLAIN_CHARS, PartSplitter, Step, held_back
from widgets.no_relayout import virtual_size_without_relayout


class UserMessage(Static):
    """What the user sent, shown as plain text (no Markdown surprises)."""

    def __init__(self, text: str) -> None:
        from widgets.attachment_marker import user_message_body  # attachments show as markers

        super().__init__(user_message_body(text), markup=False, classes="user-message")


class Notice(Static):
    """A one-line info, warning or error: retries, finish reasons, failures."""

    def __init__(self, text: str, level: str = "info") -> None:
        icon = {"info": "ℹ", "warning": "⚠", "error": "✖"}.get(level, "ℹ")
        super().__init__(f"{icon} {text}", markup=False, classes=f"notice -{level}")


class ReasoningBlock(Collapsible):
    """The model's reasoning: dim, collapsed once the answer starts.

    Textual scrolls a Collapsible into view whenever it opens or closes. That suits a click on its
    title, but when the answer collapses it the transcript must keep following the answer: scrolling
    up to the block would leave the view there, no longer following.
    """

    def __init__(self, text: str = "", *, collapsed: bool = False) -> None:
        self._body = Static(text, markup=False, classes="reasoning-text")
        super().__init__(self._body, title="Reasoning", collapsed=collapsed, classes="reasoning")
        self._text = text
        self._unseen_toggles = 0  # toggles made by the app, whose scroll into view is skipped

    def append(self, text: str) -> None:
        self._text += text
        self._body.update(self._text)

    def collapse_quietly(self) -> None:
        """Collapse without scrolling the transcript to the block (the answer has begun)."""
        if not self.collapsed:
            self._unseen_toggles += self.is_mounted  # only a mounted block asks to be scrolled to
            self.collapsed = True

    def scroll_visible(self, *args, **kwargs) -> None:
        if self._unseen_toggles:
            self._unseen_toggles -= 1
            return
        super().scroll_visible(*args, **kwargs)


class AssistantMessage(Vertical):
    """One model response; streamed text is appended to its Markdown (no full re-render per token).

    Each append is awaited whole inside one batch update (new blocks mounted, last block updated), so
    the screen lays it out once; the bridge already merges tokens per frame, so Textual's
    MarkdownStream (its own merging, with a refresh per step) is not used.

    A long reply is split into parts (widgets/markdown_split.py decides where): past PART_CHARS the
    next safe cut closes the Markdown being appended to and a new Markdown part is mounted after it
    in the transcript, so each frame lays out only the growing part, not the whole reply. A block
    that grows past PLAIN_CHARS without a safe cut goes on in plain-text parts (widgets/plain_part.py).

    `reply_text`, when set, reads the reply's whole text as the engine (or the stored message) holds
    it; each part knows where its text begins in it (`reply_offset`), so parts gone dormant refer to
    that text instead of keeping a copy (widgets/dormant.py).
    """

    DEFAULT_CSS = "AssistantMessage { height: auto; }"
    virtual_size = virtual_size_without_relayout()
    REPLAY_SLICE = 32_768  # a stored reply longer than PLAIN_CHARS is shown this much per frame

    def __init__(self, content: str = "", reasoning: str = "") -> None:
        super().__init__(classes="assistant-message")
        # A long stored reply (a resumed conversation) is shown the way it streamed in: appended
        # in slices once mounted, so it is split into parts and never parsed in one go.
        long = len(content) > PLAIN_CHARS
        self._initial_content = "" if long else content
        self._replay = content if long else ""
        self._initial_reasoning = reasoning
        self.reply_text: Callable[[], str] | None = (lambda: content) if long else None
        self._placed = 0  # characters of content handed to the head and the parts so far
        self._head = None  # the first Markdown, made in compose
        self._live = None  # the part being appended to: the head's Markdown, then the newest part
        self._splitter: PartSplitter | None = None  # made with the first append
        self._held = ""  # a trailing block marker ("2.", "|--") kept until its line goes on
        self._streamed = False  # content has been appended
        self.received = 0  # characters of content appended so far (where held output for it begins)
        self.parts: list[Widget] = []  # continuation parts, siblings after this widget
        self.reasoning: ReasoningBlock | None = None

    def compose(self) -> ComposeResult:
        from widgets.reply_markdown import ReplyMarkdown  # deferred: markdown-it costs startup time

        if self._initial_reasoning:
            self.reasoning = ReasoningBlock(self._initial_reasoning, collapsed=True)
            yield self.reasoning
        self._head = ReplyMarkdown(self._initial_content, classes="assistant-markdown")
        yield self._head

    @property
    def markdown(self):
        """The first Markdown of the reply (the parts follow it in the transcript)."""
        from textual.widgets import Markdown

        return self._head if self._head is not None else self.query_one(Markdown)

    @property
    def shown_text(self) -> str:
        """The source of the head and every part: the reply as displayed ("" before composing)."""
        if self._head is None:
            return ""
        return "".join(part.source for part in [self._head, *self.parts])

    @property
    def replaying(self) -> bool:
        """A stored long reply still being shown slice by slice (widgets appended to it would interleave)."""
        return bool(self._replay)

    @property
    def content(self) -> str:
        """The reply's text so far: what is shown and what is held back (a stored reply: all of it)."""
        if self._replay:
            return self._replay  # being shown: all of it is the reply's text
        return (self.shown_text or self._initial_content) + self._held

    def on_mount(self) -> None:
        if self._replay:
            self.run_worker(self._show_stored(), group="replay", exclusive=True)

    async def _show_stored(self) -> None:
        """Append the stored reply slice by slice, letting a frame paint between slices."""
        import asyncio

        for start in range(0, len(self._replay), self.REPLAY_SLICE):
            await self.append_content(self._replay[start:start + self.REPLAY_SLICE])
            follow = getattr(self.parent, "follow", None)  # the transcript keeps its end in view
            if follow is not None:
                follow()
            await asyncio.sleep(0.01)
        await self.finish()
        self._replay = ""

    async def append_content(self, text: str) -> None:
        if self.reasoning is not None and not self._streamed:
            self.reasoning.collapse_quietly()
        self._streamed = True
        self.received += len(text)
        text, self._held = held_back(self._held + text)
        await self._append_text(text)

    async def _append_text(self, text: str) -> None:
        if self._head is None:  # not composed yet (a loaded machine): compose shows it with the rest
            self._initial_content += text
            self._placed += len(text)
            return
        if self._splitter is None:
            self._live, self._splitter = self.markdown, PartSplitter()
        steps = self._splitter.feed(text)
        with self.app.batch_update():
            for step in steps:
                if step.new:
                    if self.parent is None:  # not in a transcript (yet): everything stays in the head
                        step.new = False
                    else:
                        await self._open_part(step)
                if step.text:
                    await self._live.append(step.text)
                    self._placed += len(step.text)

    async def _open_part(self, step: Step) -> None:
        """Mount a new, empty part after the last one; the following text goes there.

        A Markdown part gets all its text through `append`: a Markdown built with text and then
        appended to re-parses from the wrong line (a streamed table can end up as a paragraph).
        """
        from widgets.plain_part import PlainPart, plain_classes
        from widgets.reply_markdown import ReplyMarkdown

        if step.kind == "plain":
            part = PlainPart(classes=plain_classes(step.noted))
        else:
            part = ReplyMarkdown(classes="assistant-markdown assistant-part")
        part.message_index = getattr(self, "message_index", 0)  # type: ignore[attr-defined]
        part.reply_offset = self._placed  # type: ignore[attr-defined]
        await self.parent.mount(part, after=self.parts[-1] if self.parts else self)
        self.parts.append(part)
        self._live = part

    async def append_reasoning(self, text: str) -> None:
        if self.reasoning is None:
            self.reasoning = ReasoningBlock()
            await self.mount(self.reasoning, before=self.markdown)
        self.reasoning.append(text)

    async def finish(self) -> None:
        """Show what was held back; every append is complete when `append_content` returns."""
        held, self._held = self._held, ""
        if held:
            await self._append_text(held)


class CompactionBlock(Collapsible):
    """A compaction in the transcript: collapsed, titled with what it replaced; expands to the summary."""

    def __init__(self, summary: str, messages_summarized: int, tokens_before: int, *, auto: bool,
                 focus: str = "") -> None:
        how = "automatically" if auto else "on request"
        about = f", focus: {focus}" if focus else ""
        title = (f"Context compacted {how}: {messages_summarized} messages "
                 f"({tokens_before:,} tokens) summarized{about}")
        super().__init__(Static(summary, markup=False, classes="compaction-summary"), title=escape(title),
                         collapsed=True, classes="compaction")
