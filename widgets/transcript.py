"""The scrolling conversation of one workstream, windowed so long histories stay light.

Only a window of the stored messages is rendered as widgets. Scrolling to the top loads the
previous page (and drops far-below pages); new live output trims the oldest widgets. Each widget
remembers the index of the message it shows, so pages can be rebuilt exactly from the messages.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Callable

from textual.containers import VerticalScroll
from textual.errors import NoWidget
from textual.geometry import Region
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from app.vocabulary.messages import Message, ToolCall
from widgets.dormant import DormantParts, PartSource, part_source, wake
from widgets.inline_image import MessageImages
from widgets.messages import AssistantMessage, Notice, UserMessage
from widgets.no_relayout import virtual_size_without_relayout
from widgets.textual_internals import (anchor_released, forget_markdown_text, forget_rendered_lines,
                                       free_when_dropped)
from widgets.tool_card import ToolCard

PAGE = 60  # messages rendered per page
MAX_WIDGETS = 300  # beyond this, widgets far from the viewport are removed
SLEEP_SCREENS = 3  # parts of a long reply further above the view than this many screens go dormant
WAKE_SCREENS = 2  # dormant parts closer than this are rendered again
SETTLE_EVERY = 0.5  # seconds between checks while output streams or the view scrolls


class PageMarker(Static):
    """'▲ 1,234 earlier messages — scroll up to load' at an edge of the window."""

    def __init__(self, text: str) -> None:
        super().__init__(text, classes="page-marker")


NO_RESULT = "No result: Whimbrel stopped before this call was run or finished."
UNANSWERED = "This turn was interrupted before the model answered."


def render_messages(messages: list[Message], start: int, all_messages: list[Message], *,
                    live: bool = False) -> list[Widget]:
    """Widgets for messages[start:start+len(messages)], tool results shown inside their cards.

    `live`: a turn of this conversation is running (here, or in the window that holds it), so a call
    without a result may still get one and a last reply saved as interrupted is still streaming.
    Otherwise such a call was never run (the app stopped first) and a conversation that ends
    without an answer ends with an interrupted turn: both are shown as such.
    """
    results = {m.tool_call_id: m for m in all_messages if m.role == "tool"}
    widgets: list[Widget] = []
    for offset, message in enumerate(messages):
        index = start + offset
        made: list[Widget] = []
        if message.role == "user":
            made.append(UserMessage(message.content))
            if message.raw and message.raw.get("images"):
                made.append(MessageImages(message.raw["images"]))
        elif message.role == "assistant":
            if message.content or message.reasoning:
                made.append(AssistantMessage(message.content, message.reasoning))
            for call in message.tool_calls:
                made.append(_card(call, results.get(call.id), live))
            if message.interrupted and not (live and index == len(all_messages) - 1):
                made.append(Notice("This response was interrupted.", "warning"))  # unless still streaming
        if not live and index == len(all_messages) - 1 and message.role in ("user", "tool"):
            made.append(Notice(UNANSWERED, "warning"))
        for widget in made:
            widget.message_index = index  # type: ignore[attr-defined]
        widgets.extend(made)
    return widgets


def _card(call: ToolCall, result: Message | None, live: bool) -> ToolCard:
    """A card for a stored call, open as a live one is: its result's status, or pending / not run without one."""
    if result is None:
        status, output = ("pending", "") if live else ("not_run", NO_RESULT)
    else:
        status, output = ("error" if result.is_error else "done"), result.content
    return ToolCard(call.id, call.name, _preview(call.name, call.arguments), status=status, output=output,
                    arguments=call.arguments)


def _preview(name: str, arguments: str) -> str:
    from tools.preview import preview_text

    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return arguments
    return preview_text(name, args) if isinstance(args, dict) else arguments


class Transcript(VerticalScroll):
    """Holds message widgets; follows the bottom while the user has not scrolled up.

    Following uses Textual's anchor once the transcript is taller than the view: the layout pass
    that places new output also scrolls to it, so a streamed update costs one layout instead of a
    layout and then a scroll. A transcript shorter than the view is never anchored (the anchor
    would push it to the bottom of the view).

    Whether to follow is `sticky`: it turns off when the view moves up (the user scrolled) and on
    when it reaches the end. It never depends on measuring the view when output arrives: sizes are
    those of the last layout then, and the update that first makes the transcript overflow would
    look like the user being far from the end. The layout that makes a sticky
    transcript overflow anchors it (`watch_virtual_size`, `on_resize`).
    """

    virtual_size = virtual_size_without_relayout()

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.cards: dict[str, ToolCard] = {}
        self.folded: dict[str, bool] = {}  # call id -> collapsed, as the user left it: kept when redrawn
        self.source: Callable[[], list[Message]] = list
        self.live: Callable[[], bool] = lambda: False  # a turn is running (see render_messages)
        self.first = 0  # index of the first rendered message
        self.last = 0  # one past the last rendered message
        self.at_end = True  # False after paging far back trimmed the newest messages away
        self._loading = False
        self._settling = False
        self._settled_at = 0.0
        self._settle_timer: Timer | None = None
        self._settle_lock = asyncio.Lock()
        self.sticky = True  # follow new output: the view has not been moved up away from the end

    @property
    def _following(self) -> bool:
        """Anchored to the bottom and not released by the user scrolling up."""
        return self.is_anchored and not anchor_released(self)

    # -- live additions ------------------------------------------------------------------
    async def add(self, widget: Widget, index: int | None = None) -> Widget:
        if not self.is_attached:  # the view went away (closed tab, quitting app):
            return widget  # late output (a notice at quit, say) has nowhere to show; the store has it
        if index is None:
            index = len(self.source())
        if not self.at_end:  # the user paged far back and trimmed the end: jump back to the present
            # a page load still running (or queued by a scroll) would trim this live output away again
            self.workers.cancel_group(self, "transcript-page")
            await self._render_window(index)
        widget.message_index = index  # type: ignore[attr-defined]
        if isinstance(widget, ToolCard):
            self.cards[widget.call_id] = widget
        await self.mount(widget)
        self.last = max(self.last, index + 1)
        await self._trim_top()
        if self.sticky and not self._following:
            self._to_end()
        return widget

    def _to_end(self) -> None:
        """Scroll to the end; anchor there if the transcript is taller than the view."""
        if self.max_scroll_y > 0:
            self.anchor()
        else:
            self.scroll_end(animate=False)

    def on_resize(self, event) -> None:
        self._fit_anchor(event.virtual_size.height > event.container_size.height)

    def watch_virtual_size(self) -> None:
        """A layout stored the transcript's new content size. Textual sends a Resize only when the
        transcript's own size changes, not its content's: output that grows past the view while no
        `follow()` sees a layout in between (a fast stream can hold every layout off until it ends)
        would leave the view where the last scroll put it, short of the end. Checked after the
        layout, as a Resize would be."""
        self.call_later(lambda: self._fit_anchor(self.max_scroll_y > 0))

    def _fit_anchor(self, overflowing: bool) -> None:
        """Anchor a sticky transcript once it overflows; let go of the anchor once it no longer does."""
        if self.is_anchored and not overflowing:
            self.anchor(False)  # shorter than the view again: top-aligned, not pushed down
            self.scroll_to(y=0, animate=False, immediate=True)
        elif overflowing and self.sticky and not self._following:
            self.anchor()  # the layout that made it overflow: follow from here

    async def add_user(self, text: str, images: list[dict] | None = None) -> None:
        """The user's message, and the images sent with it drawn inline where the terminal can."""
        index = len(self.source()) - 1
        await self.add(UserMessage(text), index)
        if images:
            await self.add(MessageImages(images), index)

    async def add_notice(self, text: str, level: str = "info", before: Widget | None = None) -> None:
        """A notice at the end, or just above `before` (a reply that has not begun yet)."""
        if before is None or before.parent is not self:
            await self.add(Notice(text, level))
            return
        notice = Notice(text, level)
        notice.message_index = getattr(before, "message_index", len(self.source()))  # type: ignore[attr-defined]
        await self.mount(notice, before=before)
        if self.sticky and not self._following:
            self._to_end()

    async def start_assistant(self) -> AssistantMessage:
        message = AssistantMessage()
        await self.add(message)
        return message

    async def add_tool_card(self, card: ToolCard) -> ToolCard:
        await self.add(card, max(0, len(self.source()) - 1))
        return card

    def follow(self) -> None:
        """Keep the newest output in view unless the user scrolled away."""
        if self.sticky and not self._following:
            self._to_end()
        self._schedule_settle()

    # -- dormant parts of long replies (widgets/dormant.py) -------------------------------
    def _schedule_settle(self) -> None:
        """Run `settle_parts` now, or once SETTLE_EVERY has passed since the last run."""
        if self._settle_timer is not None:
            return
        wait = self._settled_at + SETTLE_EVERY - time.monotonic()
        if self._settling or wait > 0:
            self._settle_timer = self.set_timer(max(wait, 0.05), self._settle_due)
            return
        self._settling, self._settled_at = True, time.monotonic()
        self.run_worker(self.settle_parts(), group="transcript-settle", exit_on_error=False)

    def _settle_due(self) -> None:
        self._settle_timer = None
        self._schedule_settle()

    async def settle_parts(self) -> None:
        """Parts of long replies far above the view go dormant; dormant ones near it are rendered again."""
        try:
            async with self._settle_lock:  # one at a time: both steps move the same widgets
                height = max(1, self.scrollable_content_region.height)
                await self._sleep_parts_above(self.scroll_y - SLEEP_SCREENS * height)
                await self._wake_parts_from(self.scroll_y - WAKE_SCREENS * height)
        finally:
            self._settling = False

    @staticmethod
    def _place(widget: Widget) -> Region | None:
        try:
            return widget.virtual_region
        except NoWidget:  # not laid out yet, or the view is hidden
            return None

    @staticmethod
    def _is_part(widget: Widget) -> bool:
        return isinstance(widget, DormantParts) or widget.has_class("assistant-part")

    async def _sleep_parts_above(self, limit: float) -> None:
        """Replace each run of reply parts that ends above `limit` by one DormantParts."""
        content = self._content()
        last_parts = {getattr(w, "message_index", None): w for w in content if w.has_class("assistant-part")}
        live = {id(widget) for widget in last_parts.values()}  # the part a reply may still stream into
        runs: list[list[tuple[Widget, Region]]] = [[]]
        for widget in content:
            place = self._place(widget) if self._is_part(widget) and id(widget) not in live else None
            if place is None or place.bottom > limit:
                if place is not None and place.y >= limit:
                    break  # everything further down is closer to the view
                runs.append([])
                continue
            if runs[-1] and getattr(runs[-1][-1][0], "message_index", None) != getattr(widget, "message_index", None):
                runs.append([])
            runs[-1].append((widget, place))
        for run in runs:
            if not any(not isinstance(widget, DormantParts) for widget, _ in run):
                continue
            parts: list[PartSource] = []
            slept: dict[int, PartSource] = {}
            first = run[0][0]
            message_index = getattr(first, "message_index", 0)
            head = self._reply_head(next(widget for widget, _ in run if not isinstance(widget, DormantParts)))
            reply = getattr(head, "reply_text", None)
            for index, (widget, place) in enumerate(run):
                if isinstance(widget, DormantParts):
                    parts.extend(widget.parts)
                    continue
                end = run[index + 1][1].y if index + 1 < len(run) else place.bottom
                parts.append(part_source(widget, " ".join(sorted(widget.classes)), end - place.y, reply))
                slept[id(widget)] = parts[-1]
            asleep = [widget for widget, _ in run]
            nodes = [node for widget in asleep for node in widget.walk_children(with_self=True)]  # (gone once removed)
            with self.app.batch_update():
                await self.mount(DormantParts(parts, message_index), before=first)
                await self.remove_children(asleep)
            self._forget_parts(head, slept)
            self._let_go(nodes)

    def _let_go(self, removed: list[Widget]) -> None:
        """What removed parts and their blocks (`removed`, each of them: a removed widget has no
        children left to walk) still hold goes now, not with them at the next full collection: their
        rendered lines, their text (a Markdown part's source, tokens and contents; a plain part's
        text), and the list of displayed children that Textual keeps until it is next read. The
        widgets themselves are freed as soon as nothing holds them (`free_when_dropped`)."""
        for widget in removed:
            forget_rendered_lines(widget)
            forget_markdown_text(widget)
            free_when_dropped(widget)
            release = getattr(widget, "release_text", None)
            if release is not None:
                release()
        _ = self.displayed_children  # reading it replaces the list that still held them

    def _reply_head(self, part: Widget) -> AssistantMessage | None:
        """The AssistantMessage that `part` is a part of."""
        for head in self.query_children(AssistantMessage):
            if getattr(head, "message_index", None) == getattr(part, "message_index", None) and \
                    any(mine is part for mine in head.parts):
                return head
        return None

    @staticmethod
    def _forget_parts(head: AssistantMessage | None, slept: dict[int, PartSource]) -> None:
        """The reply's own list of its parts keeps their text, not the removed widgets (and their
        rendered lines): a PartSource has the `source` that list is read for."""
        if head is not None:
            head.parts = [slept.get(id(part), part) for part in head.parts]

    async def _wake_parts_from(self, limit: float) -> None:
        """Render again the dormant parts that reach below `limit` (those above it stay dormant)."""
        for dormant in list(self.query_children(DormantParts)):
            place = self._place(dormant)
            if place is None or place.bottom <= limit:
                continue
            keep: list[PartSource] = []
            y = place.y
            for part in dormant.parts:
                if y + part.height > limit:
                    break
                keep.append(part)
                y += part.height
            woken = wake(dormant.parts[len(keep):], dormant.message_index)
            with self.app.batch_update():
                await self.mount_all(woken, after=dormant)
                if keep:
                    dormant.parts = keep
                    dormant.styles.height = sum(part.height for part in keep)
                else:
                    await dormant.remove()

    # -- history window ------------------------------------------------------------------
    async def show_history(self, messages: list[Message]) -> None:
        """Render the newest page of a stored conversation; older pages load on scrolling up."""
        await self._render_window(len(messages), messages)
        self.scroll_end(animate=False)

    async def grow_last_reply(self, messages: list[Message]) -> bool:
        """The last reply grew in the store since it was shown (another window streams it): append the
        new text to its widget, as a stream would, instead of rendering the page afresh each time.
        False when anything else changed (the caller renders afresh)."""
        replies = self.query_children(AssistantMessage)
        if not (messages and replies and self.at_end and self.last == len(messages)):
            return False
        widget, message = replies.last(), messages[-1]
        text, content = message.content or "", self._content()
        after = content[content.index(widget) + 1:]
        if (getattr(widget, "message_index", None) != len(messages) - 1 or message.role != "assistant"
                or message.tool_calls or message.reasoning or widget.replaying
                or any(w not in widget.parts for w in after) or not text.startswith(widget.content)):
            return False
        await widget.append_content(text[len(widget.content):])
        if widget.reply_text is not None:  # its dormant parts read the whole text: the longer one now
            widget.reply_text = lambda: text
        self.follow()
        return True

    async def _render_window(self, end: int, messages: list[Message] | None = None) -> None:
        """Replace what is shown with the page of messages ending just before `end`."""
        messages = self.source() if messages is None else messages
        await self.clear_all()
        self.first = max(0, end - PAGE)
        self.last = end
        self.at_end = True
        widgets = render_messages(messages[self.first:end], self.first, messages, live=self.live())
        self._register(widgets)
        if widgets:
            await self.mount_all(widgets)
        await self._update_markers()

    async def clear_all(self) -> None:
        self.cards.clear()
        await self.remove_children()
        self.first = self.last = 0
        self.at_end = True

    def _register(self, widgets: list[Widget]) -> None:
        for widget in widgets:
            if isinstance(widget, ToolCard):
                self.cards[widget.call_id] = widget
                if widget.call_id in self.folded:  # redrawn (rewind, paging): as the user left it
                    widget.collapsed = self.folded[widget.call_id]

    def on_collapsible_collapsed(self, event) -> None:
        if isinstance(event.collapsible, ToolCard):
            self.folded[event.collapsible.call_id] = True

    def on_collapsible_expanded(self, event) -> None:
        if isinstance(event.collapsible, ToolCard):
            self.folded[event.collapsible.call_id] = False

    def _content(self) -> list[Widget]:
        return [w for w in self.children if not isinstance(w, PageMarker)]

    async def _update_markers(self) -> None:
        await self.query(PageMarker).remove()
        if self.first > 0:
            await self.mount(PageMarker(f"▲ {self.first:,} earlier messages — scroll up to load"), before=0)

    async def _trim_top(self) -> None:
        """Live output keeps at most MAX_WIDGETS widgets: drop whole messages from the top."""
        content = self._content()
        if len(content) <= MAX_WIDGETS:
            return
        cutoff = getattr(content[len(content) - MAX_WIDGETS], "message_index", 0)
        doomed = [w for w in content if getattr(w, "message_index", 0) < cutoff]
        if not doomed:  # one message's worth of widgets: drop the oldest notices (they are not history)
            excess = len(content) - MAX_WIDGETS
            await self.remove_children([w for w in content if isinstance(w, Notice)][:excess])
            return
        for widget in doomed:
            if isinstance(widget, ToolCard):
                self.cards.pop(widget.call_id, None)
        await self.remove_children(doomed)
        self.first = max(self.first, cutoff)
        await self._update_markers()

    async def load_earlier(self) -> int:
        """Render the page before the window at the top, keeping the view steady. Returns messages added."""
        if self.first <= 0 or self._loading:
            return 0
        self._loading = True
        try:
            messages = self.source()
            start = max(0, self.first - PAGE)
            widgets = render_messages(messages[start:self.first], start, messages, live=self.live())
            self._register(widgets)
            anchor = self._content()[0] if self._content() else None
            before_height = self.virtual_size.height
            added = self.first - start
            self.first = start
            if widgets:
                await self.mount_all(widgets, before=anchor) if anchor else await self.mount_all(widgets)
            await self._update_markers()
            await self._trim_bottom()
            self.call_after_refresh(lambda: self.scroll_to(
                y=self.scroll_y + max(0, self.virtual_size.height - before_height), animate=False))
            return added
        finally:
            self._loading = False

    async def _trim_bottom(self) -> None:
        """After loading older pages, drop the newest messages beyond MAX_WIDGETS (reloaded on return).

        Never while a turn is live: its widgets are still being streamed into, and dropping them would
        leave the reply writing into widgets that are no longer on screen."""
        content = self._content()
        if len(content) <= MAX_WIDGETS or self.live():
            return
        cutoff = getattr(content[MAX_WIDGETS], "message_index", self.last)
        doomed = [w for w in content if getattr(w, "message_index", 0) >= cutoff]
        for widget in doomed:
            if isinstance(widget, ToolCard):
                self.cards.pop(widget.call_id, None)
        await self.remove_children(doomed)
        self.last = cutoff
        self.at_end = False

    async def load_later(self) -> None:
        """Scrolled back down after trimming: render the following page again."""
        messages = self.source()
        if self.last >= len(messages) or self._loading:
            return
        self._loading = True
        try:
            end = min(len(messages), self.last + PAGE)
            widgets = render_messages(messages[self.last:end], self.last, messages, live=self.live())
            self._register(widgets)
            self.last = end
            self.at_end = end >= len(messages)
            await self.mount_all(widgets)
            await self._trim_top()
        finally:
            self._loading = False

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new >= self.max_scroll_y:
            self.sticky = True  # at the end (again): follow
        elif new < old:
            self.sticky = False  # moved up: the user reads; new output leaves the view where it is
        if self.query_children(DormantParts) or new > old:
            self._schedule_settle()
        if new <= 0 and old > 0 and self.first > 0:
            self.run_worker(self.load_earlier(), group="transcript-page", exclusive=True)
        elif new >= self.max_scroll_y and new > old and not self.at_end:
            self.run_worker(self.load_later(), group="transcript-page", exclusive=True)
