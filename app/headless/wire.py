"""Engine events as the JSON events of `--output stream-json` (schema: docs/headless-events.schema.json).

`RunRecord` turns each engine event into at most one wire event and keeps what the closing summary
(`--output json`, the `turn_end` event) needs: the final text, every tool call, usage and cost.
A run_code program's own calls (code mode) are tool_call / approval / tool_result events too, each
with `parent_call_id`, the run_code call that made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine import events as ev

Wire = dict[str, Any]


@dataclass
class CallRecord:
    call_id: str
    name: str
    arguments: str
    preview: str
    decision: str = ""  # "allowed" / "refused" once the policy judged it
    reason: str = ""
    output: str | None = None
    is_error: bool = False
    parent_call_id: str | None = None  # the run_code call whose program made this call

    def as_wire(self) -> Wire:
        wire = {"call_id": self.call_id, "name": self.name, "arguments": self.arguments,
                "decision": self.decision or None, "reason": self.reason or None,
                "output": self.output, "is_error": self.is_error}
        return wire if self.parent_call_id is None else {**wire, "parent_call_id": self.parent_call_id}


@dataclass
class RunRecord:
    """What one headless run did, event by event."""

    calls: dict[str, CallRecord] = field(default_factory=dict)
    final_text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    model_requests: int = 0
    refusals: list[str] = field(default_factory=list)

    def translate(self, event: ev.EngineEvent) -> Wire | None:
        """The wire event for `event`, or None for the ones the wire does not carry (state changes …)."""
        if isinstance(event, ev.CodeCallEvent):
            return self._sub_call(event)
        if isinstance(event, ev.ContentDelta):
            return {"type": "text_delta", "text": event.text}
        if isinstance(event, ev.ReasoningDelta):
            return {"type": "reasoning_delta", "text": event.text}
        if isinstance(event, ev.AssistantStarted):
            self.model_requests += 1
            return None
        if isinstance(event, ev.AssistantFinished):
            if event.content:
                self.final_text = event.content
            return {"type": "assistant_message", "text": event.content, "reasoning": event.reasoning,
                    "finish_reason": event.finish_reason, "interrupted": event.interrupted}
        if isinstance(event, ev.ToolCallAdded):
            self.calls[event.call_id] = CallRecord(event.call_id, event.name, event.arguments, event.preview)
            return {"type": "tool_call", "call_id": event.call_id, "name": event.name,
                    "arguments": event.arguments, "preview": event.preview}
        if isinstance(event, ev.PermissionNoted):  # the permission engine's verdict (app/engine/gating.py)
            record = self.calls.get(event.call_id)
            for prefix, allowed in (("refused: ", False), ("ran unasked: ", True)):
                if record is not None and event.note.startswith(prefix) and not record.decision:
                    return self.decided(event.call_id, record.name, allowed, event.note[len(prefix):])
            return None
        if isinstance(event, ev.ToolCallUpdated) and event.status == "running":
            record = self.calls.get(event.call_id)
            if record is not None and not record.decision:
                # the engine notes every verdict but one: a tool that only reads is allowed by the tool itself
                # (app/permissions/gate.py), in every mode; it is reported here, before it runs, like the others
                why = ("it runs nothing itself: each call its program makes is judged on its own"
                       if record.name == "run_code" else f"{record.name} only reads")
                return self.decided(event.call_id, record.name, True, why)
            return None
        if isinstance(event, ev.ToolResultReady):
            record = self.calls.get(event.call_id)
            if record is not None:
                record.output, record.is_error = event.output, event.is_error
                record.decision = record.decision or "allowed"
            return {"type": "tool_result", "call_id": event.call_id,
                    "name": record.name if record else "", "output": event.output, "is_error": event.is_error}
        if isinstance(event, ev.UsageRecorded):
            self.prompt_tokens += event.prompt_tokens
            self.completion_tokens += event.completion_tokens
            self.cost = event.session_cost
            return {"type": "usage", "model": event.model, "prompt_tokens": event.prompt_tokens,
                    "completion_tokens": event.completion_tokens, "cost": event.cost,
                    "session_cost": event.session_cost}
        if isinstance(event, ev.Notice):
            return {"type": "notice", "level": event.level, "text": event.text}
        return None

    def _sub_call(self, event: ev.CodeCallEvent) -> Wire | None:
        """One event of a call a run_code program made, marked with the run_code call's id."""
        wire = self.translate(event.event)
        record = self.calls.get(getattr(event.event, "call_id", ""))
        if record is not None:
            record.parent_call_id = event.call_id
        return None if wire is None else {**wire, "parent_call_id": event.call_id}

    def decided(self, call_id: str, name: str, allowed: bool, reason: str) -> Wire:
        """The `approval` event for the policy's verdict on one call."""
        record = self.calls.get(call_id)
        if record is not None:
            record.decision, record.reason = ("allowed" if allowed else "refused"), reason
        if not allowed:
            self.refusals.append(f"{name}: {reason}")
        return {"type": "approval", "call_id": call_id, "name": name,
                "decision": "allowed" if allowed else "refused", "reason": reason}

    def summary(self, *, workstream_id: str, name: str | None, outcome: str, exit_code: int,
                reason: str) -> Wire:
        """The `result` object of `--output json` (and the fields of `turn_end`)."""
        return {"type": "result", "workstream_id": workstream_id, "name": name, "outcome": outcome,
                "exit_code": exit_code, "reason": reason, "text": self.final_text,
                "tool_calls": [c.as_wire() for c in self.calls.values()],
                "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                          "model_requests": self.model_requests},
                "cost": self.cost, "refusals": list(self.refusals)}
