"""A workstream pane: its transcript and prompt, updated from engine events."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message

from app.bridge import EngineEventMessage
from app.engine import events as ev
from widgets.messages import AssistantMessage
from widgets.prompt import PromptInput
from widgets.tool_card import ToolCard
from widgets.transcript import Transcript


class WorkstreamPane(Vertical):
    """Renders one workstream. Approval requests bubble up as `ApprovalNeeded` for the screen to show."""

    @dataclass
    class ApprovalNeeded(Message):
        event: ev.ApprovalRequested

    @dataclass
    class StateUpdate(Message):
        """Bubbles state and token changes so the screen can refresh its tab and status bars."""

        event: ev.StateChanged | ev.UsageUpdated

    def __init__(self, **kwargs) -> None:
        super().__init__(classes="workstream-pane", **kwargs)
        self._assistant: AssistantMessage | None = None

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        yield PromptInput(id="prompt")

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @on(EngineEventMessage)
    async def handle_engine_event(self, message: EngineEventMessage) -> None:
        message.stop()
        event = message.event
        transcript = self.transcript
        match event:
            case ev.UserMessageAdded(text=text):
                await transcript.add_user(text)
            case ev.AssistantStarted():
                self._assistant = await transcript.start_assistant()
            case ev.ContentDelta(text=text) if self._assistant is not None:
                await self._assistant.append_content(text)
                transcript.follow()
            case ev.ReasoningDelta(text=text) if self._assistant is not None:
                await self._assistant.append_reasoning(text)
                transcript.follow()
            case ev.AssistantFinished() if self._assistant is not None:
                await self._assistant.finish()
                if not (event.content or event.reasoning):
                    await self._assistant.remove()
                self._assistant = None
            case ev.ToolCallAdded():
                await transcript.add_tool_card(ToolCard(event.call_id, event.name, event.preview))
            case ev.ToolCallUpdated(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].set_status(event.status, event.detail)
            case ev.ToolOutput(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].append_output(event.text)
                transcript.follow()
            case ev.ToolResultReady(call_id=call_id) if call_id in transcript.cards:
                transcript.cards[call_id].set_result(event.output, event.is_error)
                transcript.follow()
            case ev.Notice():
                await transcript.add_notice(event.text, event.level)
            case ev.ApprovalRequested():
                self.post_message(self.ApprovalNeeded(event))
            case ev.StateChanged() | ev.UsageUpdated():
                self.post_message(self.StateUpdate(event))
