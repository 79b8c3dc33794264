"""task and plan: sub-agents that run their own turn loop inside a parent's tool call.

A sub-agent is a child `Session` with a scope never wider than its parent's (the parent's visible
tools ∩ its audience ∩ what the call asked for; a tool the parent lacks is refused), the parent's
approval rules (copied: an "always" inside a sub-agent does not widen the parent), its own context
and a token budget. Its events are wrapped in `SubagentEvent` for the parent's tool card; its
approvals go to the user like the parent's, marked with its name. Cancelling the parent's call
cancels it. Its messages are stored in `subagent_messages`, its usage in the parent's usage rows.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.engine import events as ev
from app.engine import gating
from app.storage import subagent_store
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import ToolSpec
from tools.visibility import PLAN, TASK, offered_to, visible_tools

if TYPE_CHECKING:
    from app.engine.session_view import SessionView

TOKEN_BUDGET = 400_000  # prompt + completion tokens over all of one sub-agent's requests
RUN_LIMIT = 3600.0
PLAN_DIR = Path(".whimbrel") / "plans"
FORWARDED_STATES = ("attention", "running")  # a sub-agent waiting on the user makes the tab ask too
PLAN_BRIEF = """You are a planning sub-agent. Explore the workspace with your read-only tools, then answer
with a concrete, numbered implementation plan in Markdown (files to change, steps, risks, how to test).
Do not change anything. Your final answer is the plan itself.

Goal:
{prompt}"""


class SubagentStore:
    """The child's store: its messages to `subagent_messages`, its usage to the parent's rows."""

    def __init__(self, store: Any, parent_id: str, run_id: str) -> None:
        self.store, self.parent_id, self.run_id = store, parent_id, run_id

    async def add_message(self, _workstream_id: str, message: Any) -> None:
        await self.store.run(subagent_store.add_message, self.store.store, self.run_id, message)

    async def add_usage(self, _workstream_id: str, **fields: Any) -> int:
        return await self.store.add_usage(self.parent_id, **fields)


class Subagents:
    """The task/plan tools of one parent session."""

    def __init__(self, parent: SessionView) -> None:
        self.parent = parent
        self.count = 0
        self.agent_model: str | None = None  # [model] agent_model
        self.token_budget = TOKEN_BUDGET

    def bind(self, base: ToolSpec | None, kind: str) -> ToolSpec | None:
        """The registry's schema for `kind`, with this session's implementation."""
        if base is None:
            return None
        if kind == "watch":
            from app.engine.watches import WatchTool

            return dataclasses.replace(base, implementation=WatchTool(self.parent))
        run = self.run_task if kind == "task" else self.run_plan
        return dataclasses.replace(base, implementation=run, run_limit=RUN_LIMIT)

    # -- the tools -------------------------------------------------------------------------
    async def run_task(self, args: dict[str, Any], ctx: ToolContext) -> str:
        requested = args.get("tools")
        if requested is not None and not (isinstance(requested, list) and all(isinstance(t, str) for t in requested)):
            raise ToolError("task: 'tools' must be a list of tool names")
        name, text = await self._run(TASK, str(args["prompt"]), ctx, requested, args.get("model"))
        return f"[{name}] {text}"

    async def run_plan(self, args: dict[str, Any], ctx: ToolContext) -> str:
        workspace = self.parent.tool_context.workspace
        path = workspace / PLAN_DIR / f"{self.parent.workstream_id or 'plan'}.md"
        prompt = PLAN_BRIEF.format(prompt=args["prompt"])
        if path.is_file():
            prompt += f"\n\nThe previous plan (refine it rather than start over):\n{path.read_text(errors='replace')}"
        name, plan = await self._run(PLAN, prompt, ctx, None, None)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(plan.rstrip() + "\n", encoding="utf-8")
        decision = await self._review(ctx.call_id, name, plan, path)
        shown = path.relative_to(workspace)
        notes = f" Their notes: {decision.feedback.strip()}" if decision.feedback.strip() else ""
        if decision.decision == "deny":
            return f"The user rejected the plan ({shown}).{notes} Do not carry it out; revise it or ask them."
        return f"The user accepted the plan, saved in {shown}:{notes}\n\n{plan}"

    # -- running one sub-agent --------------------------------------------------------------
    def _scope(self, audience: str, requested: list[str] | None):
        parent = self.parent
        mine = {s.name for s in visible_tools(parent.registry, parent.tool_scope)}
        if requested is not None:
            lacking = sorted(set(requested) - mine)
            if lacking:
                raise ToolError(f"refused: the sub-agent asked for {', '.join(lacking)}, which this agent does "
                                f"not have (a sub-agent never gets more tools than its parent)")
            not_for_agents = sorted(n for n in requested
                                    if not offered_to(parent.registry.get(n) or parent.tool_scope.extra[n], audience))
            if not_for_agents:
                raise ToolError(f"refused: {', '.join(not_for_agents)} cannot be used by a sub-agent")
        allowed = frozenset(mine if requested is None else set(requested) & mine)
        return parent.tool_scope.narrowed(audience, allowed)

    def _provider(self, model: str | None):
        parent = self.parent
        alias = model or self.agent_model
        if alias is None or parent.models is None:
            if model is not None and parent.models is None:
                raise ToolError(f"task: no model registry, so model {model!r} cannot be chosen")
            return parent.provider, parent.model_alias
        if alias not in parent.models:
            raise ToolError(f"task: unknown model {alias!r}")
        return parent.models.provider(alias), alias

    async def _run(self, audience: str, prompt: str, ctx: ToolContext, requested: list[str] | None,
                   model: str | None) -> tuple[str, str]:
        parent = self.parent
        scope = self._scope(audience, requested)
        provider, alias = self._provider(model)
        self.count += 1
        name = f"{'task' if audience == TASK else 'plan'}-{self.count}"
        store = parent.store if hasattr(parent.store, "run") and parent.workstream_id else None
        run_id = None
        if store is not None:
            run_id = await store.run(subagent_store.start_run, store.store, parent.workstream_id, call_id=ctx.call_id,
                                     kind=audience, name=name, prompt=prompt, model=alias)
        used = [0]
        over_budget = asyncio.Event()
        runner: asyncio.Task | None = None

        def forward(event: ev.EngineEvent) -> None:
            if isinstance(event, ev.ApprovalRequested):
                for item in event.items:
                    item.name = f"{name} · {item.name}"
                parent.emit(event)
                parent.emit(ev.SubagentEvent(ctx.call_id, name, event))  # its pane says it waits (the parent's view ignores it)
                return
            if isinstance(event, ev.StateChanged) and event.state in FORWARDED_STATES:
                parent.emit(ev.StateChanged(event.state))
            if isinstance(event, ev.UsageRecorded):
                used[0] += event.prompt_tokens + event.completion_tokens
                if used[0] > self.token_budget and runner is not None and not over_budget.is_set():
                    over_budget.set()
                    runner.cancel()
            parent.emit(ev.SubagentEvent(ctx.call_id, name, event))

        # a Session of the parent's own class (this module does not import session.py)
        child = type(parent)(
            workstream_id=parent.workstream_id, provider=provider, registry=parent.registry,
            tool_context=dataclasses.replace(parent.tool_context, read_paths=set(), ask_model=None, call_id=""),
            emit=forward, store=SubagentStore(store, parent.workstream_id, run_id) if run_id else None,
            max_retries=parent.max_retries, retry_base_delay=parent.retry_base_delay,
            models=parent.models, model_alias=alias,
            guard=parent.guard.for_sub_agent(name))  # the parent's rules, mode and sandbox
        child.provider = provider
        child.tool_scope = scope
        child.usage = parent.usage  # the parent's status bar and /cost count the sub-agent
        runner = asyncio.ensure_future(child.run_turn(prompt))
        status = "done"
        try:
            await runner
        except asyncio.CancelledError:
            if not over_budget.is_set():
                await self._finish(store, run_id, "cancelled", "cancelled with its parent")
                raise
            status = "budget"
        answer = next((m.content for m in reversed(child.messages) if m.role == "assistant" and m.content), "")
        if status == "budget":
            text = (f"stopped at its token budget ({self.token_budget:,} tokens) before finishing. "
                    f"What it had found:\n{answer or '(nothing yet)'}")
        else:
            text = answer or "(the sub-agent finished without an answer)"
        await self._finish(store, run_id, status, text)
        return name, text

    @staticmethod
    async def _finish(store: Any, run_id: str | None, status: str, text: str) -> None:
        if store is not None and run_id is not None:
            await asyncio.shield(store.run(subagent_store.finish_run, store.store, run_id, status, text))

    async def _review(self, call_id: str, name: str, plan: str, path: Path) -> ev.ApprovalDecision:
        """The plan review: the user accepts, or rejects with notes, before the parent goes on."""
        item = ev.ApprovalItem(f"{call_id}:review", f"{name} · plan review", plan,
                               reason=f"review the plan (saved under {PLAN_DIR}/): approve to accept it, deny "
                                      f"with feedback to reject it with notes", review=True)
        decisions = await gating.ask_user(self.parent, [item])
        return decisions.get(item.call_id) or ev.ApprovalDecision("deny")
