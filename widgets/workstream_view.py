"""One workstream's view: a title line, its transcript and its prompt, updated from engine events."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Button, Static

from widgets.bridge import EngineEventMessage
from app.runtime.idle_gc import after_output
from app.vocabulary.inert import inert
from widgets.held_banner import READ_ONLY_PLACEHOLDER, TAKE_OVER_ID, HeldBanner
from widgets.held_output import SLICE_CHARS, HeldOutput
from widgets.messages import AssistantMessage, CompactionBlock
from widgets.prompt import TYPING_QUIET, PromptInput  # held output waits for a pause in typing ...
from widgets.mention_suggestions import MentionSuggestions
from widgets.slash_suggestions import SlashSuggestions
from widgets.status_bar import STATE_STYLES
from widgets.subagent_pane import SubagentPane, SubagentRuns
from widgets.tool_card import ToolCard
from widgets.transcript import Transcript

if TYPE_CHECKING:
    from app.engine import events as ev
    from app.engine.workstream import Workstream


MAX_TYPING_HOLD = 2.0  # held output (see TYPING_QUIET) is still shown at least this often while the user keeps typing,
ECHO_RELEASE_CHARS = 2048  # ... this much at a time, right after a key's echo was painted


class ViewTitle(Static):
    """`2 · api-refactor  ● running  ⚑ 1` above a pane (shown when panes are split)."""

    def show(self, number: int, workstream: Workstream) -> None:
        text = Text()
        text.append(f" {number} · ", style="dim")
        text.append(inert(workstream.name, multiline=False), style="bold")
        text.append(f"  ● {workstream.state}", style=STATE_STYLES.get(workstream.state, ""))
        if workstream.pending:
            text.append(f"  ⚑ {len(workstream.pending)} waiting for approval", style="bold magenta")
        self.update(text)


class WorkstreamView(Vertical):
    """Renders one workstream. Approvals and state changes bubble up for the screen to handle."""

    @dataclass
    class ApprovalNeeded(Message):
        view: "WorkstreamView"
        event: ev.ApprovalRequested

    @dataclass
    class Changed(Message):
        """The workstream's state, tokens or title changed: tabs and status bar should refresh."""

        view: "WorkstreamView"

    @dataclass
    class TakeOver(Message):
        """The user asked to take over this read-only workstream (its other window has gone)."""

        view: "WorkstreamView"

    @dataclass
    class CatchUp(Message):
        """Render held output if it may go now: the view was shown again, typing paused, or a key's
        echo was just painted (`after_echo`) while the user keeps typing."""

        after_echo: bool = False

    @dataclass
    class DrawingChanged(Message):
        """How much of an ended reply is still to be drawn changed (`view.drawing`): the status bar says
        so, since the workstream is idle while the screen is behind."""

        view: WorkstreamView

    def __init__(self, workstream: Workstream) -> None:
        super().__init__(classes="workstream-view")
        self.workstream = workstream
        self.history_shown = False  # stored messages are rendered the first time the view is shown
        self._assistant: AssistantMessage | None = None
        self.shown = True  # False while no pane shows this view: streamed text is then held, not rendered
        self._held = HeldOutput()
        self._reply_began = False  # the current reply (self._assistant) has had a content or reasoning delta
        self._held_since = 0.0
        self._release_timer = None
        self._finishing: list[tuple[AssistantMessage, bool]] = []  # ended replies whose text is still held
        self.drawing = 0  # characters of ended replies still held (the user typing): the screen is behind
        self.subagent_runs = SubagentRuns()  # every sub-agent's events, for a pane opened late
        # Made here, not in compose: callers set up the prompt (completer, past prompts) right after
        # mounting the view, and under load a take-over found the view's children not there yet.
        self._prompt = PromptInput()

    def compose(self) -> ComposeResult:
        yield ViewTitle(classes="view-title")
        yield Transcript()
        yield SlashSuggestions()
        yield MentionSuggestions()
        yield HeldBanner(classes="held-banner")
        yield self._prompt

    def on_mount(self) -> None:
        if not self.query(Transcript):
            return  # the app is quitting (a signal during boot) and has removed the view's children already
        self.transcript.source = lambda: self.workstream.session.messages
        self.transcript.live = lambda: self.workstream.busy or self.workstream.streaming_elsewhere
        self.show_ownership()

    def show_ownership(self) -> None:
        """Read-only while another window holds the workstream: the banner shows, the prompt is off."""
        self.query_one(HeldBanner).show(self.workstream)
        if self.workstream.read_only:  # a view never becomes writable again: take-over builds a new one
            self.prompt.disabled = True
            self.prompt.placeholder = READ_ONLY_PLACEHOLDER

    @property
    def focus_target(self):
        """What gets the keyboard when this view is focused: the prompt; when read-only, the take-over
        button once it is enabled, else the transcript (focus must land in this view, not stay elsewhere)."""
        if not self.workstream.read_only:
            return self.prompt
        button = self.query_one(HeldBanner).button
        return self.transcript if button.disabled else button

    @on(Button.Pressed, f"#{TAKE_OVER_ID}")
    def take_over_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.TakeOver(self))

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> PromptInput:
        return self._prompt

    def set_shown(self, shown: bool) -> None:
        """Called as panes change: a hidden view holds streamed text until it is shown or the reply ends."""
        if shown != self.shown:
            self.shown = shown
            if shown:
                self.post_message(self.CatchUp())

    def _holding(self) -> bool:
        """Hold streamed text while hidden, and while the user types (see TYPING_QUIET).

        While typing goes on, held text is shown in small pieces right after a key's echo has been
        painted (`catch_up(after_echo=True)`), so the work lands between keys, not in front of one.
        """
        if not self.shown:
            return True
        now = time.monotonic()
        quiet_at = PromptInput.last_typed + TYPING_QUIET
        if now >= quiet_at:
            return False
        if not self._held:
            self._held_since = now
        if self._release_timer is None:
            self._release_timer = self.set_timer(quiet_at - now, self._release_due)
        return True

    def _release_due(self) -> None:
        self._release_timer = None
        self.post_message(self.CatchUp())

    @on(CatchUp)
    async def catch_up(self, message: CatchUp | None = None) -> None:
        if not self._held:
            await self._finish_released()
            return
        if not self._holding():
            await self._release(pause=self._holding)  # typing again: the rest waits for the next pause
        elif message is not None and message.after_echo and self.shown \
                and time.monotonic() - self._held_since >= MAX_TYPING_HOLD:
            await self._release(limit=ECHO_RELEASE_CHARS)
            self._held_since = time.monotonic()
        else:
            return
        self.transcript.follow()
        await self._finish_released()

    async def _release(self, limit: int | None = None, pause=lambda: False) -> None:
        """Render held text (see HeldOutput.release); the transcript follows it slice by slice."""
        await self._held.release(limit, pause, after_slice=self.transcript.follow)

    def _typing(self) -> bool:
        """The user is typing into a shown view (a hidden view renders an ended reply at once)."""
        return self.shown and self._holding()

    def _note_drawing(self) -> None:
        """Keep `drawing` true to what is held of ended replies, and say when it changes."""
        drawing = self._held.size if self._finishing else 0
        if drawing != self.drawing:
            self.drawing = drawing
            self.post_message(self.DrawingChanged(self))

    async def _finish_released(self) -> None:
        """Finish the ended replies once all held text is rendered (an empty one is removed)."""
        self._note_drawing()
        if self._held:
            return
        finishing, self._finishing = self._finishing, []
        for message, said in finishing:
            if not message.is_attached:
                continue  # removed meanwhile (the transcript was cleared)
            await message.finish()
            if not said:
                await message.remove()
        if finishing:
            self.transcript.follow()  # also puts the parts now far above the view to sleep

    @on(EngineEventMessage)
    async def handle_engine_event(self, message: EngineEventMessage) -> None:
        from app.engine import events as ev  # imported with the first event, not at startup

        message.stop()
        event = message.event
        transcript = self.transcript
        await self.catch_up()
        if isinstance(event, ev.SubagentEvent):
            self.subagent_runs.add(event.agent, event.event)
            for pane in self.screen.query(SubagentPane):  # its own pane, if one is open (app/tui/workstreams/subagent_panes.py)
                if pane.parent_id == self.workstream.id and pane.agent == event.agent:
                    pane.apply(event.event)
        if isinstance(event, (ev.ContentDelta, ev.ReasoningDelta)):
            self._reply_began = True
        match event:
            case ev.UserMessageAdded(text=text, images=images):
                await transcript.add_user(text, images)
            case ev.AssistantStarted():
                self._reply_began = False
                self._assistant = await transcript.start_assistant()
                self._assistant.reply_text = event.reply_text  # its dormant parts refer to the engine's text
            case ev.ContentDelta(text=text) if self._assistant is not None and self._holding():
                self._held.add(self._assistant, "content", text)
            case ev.ContentDelta(text=text) if self._assistant is not None and len(text) > SLICE_CHARS:
                self._held.add(self._assistant, "content", text)  # a burst: in slices, typing first
                await self._release(pause=self._holding)
            case ev.ContentDelta(text=text) if self._assistant is not None:
                await self._assistant.append_content(text)
                transcript.follow()
            case ev.ReasoningDelta(text=text) if self._assistant is not None and self._holding():
                self._held.add(self._assistant, "reasoning", text)
            case ev.ReasoningDelta(text=text) if self._assistant is not None:
                await self._assistant.append_reasoning(text)
                transcript.follow()
            case ev.AssistantFinished() if self._assistant is not None:
                # A finished reply is rendered in slices, shown or not; while the user types into a shown
                # view the rest waits for a pause in typing (a backlog of megabytes held the keys for a minute).
                await self._release(pause=self._typing)
                self._finishing.append((self._assistant, bool(event.content or event.reasoning)))
                self._assistant = None
                await self._finish_released()
                after_output(len(event.content or "") + len(event.reasoning or ""))  # a huge reply: collected once idle
            case ev.ToolCallAdded():
                await transcript.add_tool_card(ToolCard(event.call_id, event.name, event.preview,
                                                        arguments=event.arguments))
            case ev.PermissionNoted(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].set_permission(event.note)
            case ev.ToolCallUpdated(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].set_status(event.status, event.detail)
            case ev.ToolOutput(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].append_output(event.text)
                transcript.follow()
            case ev.ToolProgress(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].set_progress(event.progress, event.total, event.message)
            case ev.UserNotified(message=message):
                await transcript.add_notice(f"Notification: {inert(message)}")
                attention = getattr(self.app, "attention", None)
                if attention is not None:
                    attention.alert(f"Whimbrel: {self.workstream.name}", message)
            case ev.CodeCallEvent(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].add_code_event(event.event)
            case ev.ToolModeChanged(mode=mode):
                await transcript.add_notice(f"Tool mode: {mode}.")
            case ev.SubagentEvent(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].add_subagent_event(event.agent, event.event)
            case ev.ToolResultReady(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].set_result(event.output, event.is_error)
                transcript.follow()
            case ev.Notice() if self._assistant is not None and not self._reply_began:
                # said before the reply's first word (a retry, a fallback): shown above it, in order
                await transcript.add_notice(event.text, event.level, before=self._assistant)
            case ev.Notice():
                await transcript.add_notice(event.text, event.level)
            case ev.ApprovalRequested():
                self.post_message(self.ApprovalNeeded(self, event))
            case ev.CompactionStarted():
                what = "Compacting the conversation" + (" (context nearly full)" if event.auto else "")
                await transcript.add_notice(what + "…")
            case ev.CompactionDone():
                await transcript.add(CompactionBlock(event.summary, event.messages_summarized,
                                                     event.tokens_before, auto=event.auto, focus=event.focus))
            case ev.PromptReturned(text=text):  # not sent (the store did not answer): the text is the user's again
                self.prompt.give_back(text)
            case ev.ModelChanged():
                await transcript.add_notice(f"Now using {event.alias} ({event.model}, {event.provider}).")
        if isinstance(event, (ev.StateChanged, ev.UsageUpdated, ev.ApprovalRequested, ev.TurnFinished,
                              ev.UserMessageAdded, ev.UsageRecorded, ev.ModelChanged, ev.BreakerChanged,
                              ev.CompactionDone, ev.UserNotified, ev.ToolModeChanged)):
            self.post_message(self.Changed(self))

    def refresh_title(self, number: int) -> None:
        self.query_one(ViewTitle).show(number, self.workstream)
