"""Code mode: which way a workstream's tools are presented, and the run_code tool.

`native` sends one function per tool (as before), `code` sends only `run_code` plus the generated
Python API in the system message, `both` sends all of them. The mode is the workstream's own
(`/tools mode`, stored with it), else its model's `[models.X] tool_mode`, else `[tools] mode`.
The API is generated at each request from the tools the workstream sees in native mode, so a
changed tool set (MCP list_changed, tool_search finding tools) changes it at the next request.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Mapping

from app.engine import events as ev
from app.engine.code_calls import CodeCalls, api_scope
from tools.code_api import CodeApi, build
from tools.code_run import CodeRun, parse_limits, report
from tools.context import ToolContext
from tools.visibility import RUN_CODE, TOOL_MODES, visible_tools

if TYPE_CHECKING:
    from app.engine.session_view import SessionView as Session  # what a helper sees of the Session

SETTING = "tool_mode"  # the workstream's stored override
RUN_LIMIT = 3600.0  # the pipeline's safeguard: the program has its own limits, its calls may wait on approvals
API_HEADER = "## Tools as Python (code mode)\nUse the run_code tool with a program against this API:"


class ToolModes:
    """A workstream's tool mode: its own override, else its model's, else the config's."""

    def __init__(self, session: Session, default: str = "native", per_model: Mapping[str, str] | None = None,
                 override: str | None = None) -> None:
        self.session = session
        self.default = default if default in TOOL_MODES else "native"
        self.per_model = {k: v for k, v in (per_model or {}).items() if v in TOOL_MODES}
        self.override = override if override in TOOL_MODES else None

    def current(self) -> str:
        if self.override is not None:
            return self.override
        return self.per_model.get(self.session.model_alias or "", self.default)

    def source(self) -> str:
        """Where the current mode comes from, in words."""
        if self.override is not None:
            return "set for this workstream (/tools mode)"
        if (self.session.model_alias or "") in self.per_model:
            return f"[models.{self.session.model_alias}] tool_mode"
        return "[tools] mode"

    async def set(self, mode: str | None) -> str:
        """Set (or with None/"default", drop) this workstream's own mode; stored for resume."""
        if mode not in (*TOOL_MODES, None, "default"):
            raise ValueError(f"unknown tool mode {mode!r}: use {', '.join(TOOL_MODES)} or default")
        self.override = None if mode in (None, "default") else mode
        store = self.session.store
        if store is not None and self.session.workstream_id and hasattr(store, "set_config"):
            await store.set_config(self.session.workstream_id, SETTING, self.override)
        self.session.emit(ev.ToolModeChanged(self.current()))
        return self.current()


def code_api(session: Session) -> CodeApi:
    """The generated API of what this workstream may call from a program."""
    return build(visible_tools(session.registry, api_scope(session)))


def api_system_text(session: Session) -> str:
    """The system message's part for code and both modes ('' in native)."""
    if session.tool_scope.mode() == "native":
        return ""
    return f"{API_HEADER}\n\n```python\n{code_api(session).text}```"


class RunCodeTool:
    """run_code's implementation for one session: the program's calls go through its pipeline."""

    def __init__(self, session: Session) -> None:
        self.session = session

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> str:
        session = self.session
        calls = CodeCalls(session, ctx)
        run = CodeRun(str(args["code"]), code_api(session).bindings, calls.call,
                      parse_limits(args, ctx.output_limit), current_bindings=lambda: code_api(session).bindings)
        run.on_output = ctx.on_output
        return report(await run.run())


def attach(session: Session, config: Any = None, settings: Mapping[str, Any] | None = None) -> None:
    """Give a session its tool mode (config and stored override), run_code and the API in its system text."""
    per_model = {alias: m.tool_mode for alias, m in getattr(config, "models", {}).items()
                 if getattr(m, "tool_mode", None)}
    modes = ToolModes(session, getattr(config, "tool_mode", "native"), per_model, (settings or {}).get(SETTING))
    session.tool_modes = modes  # type: ignore[attr-defined]
    session.tool_scope.tool_mode = modes.current
    base = session.registry.get(RUN_CODE)
    if base is not None:
        session.tool_scope.extra[RUN_CODE] = dataclasses.replace(base, implementation=RunCodeTool(session),
                                                                 run_limit=RUN_LIMIT)
    earlier = session.system_extra

    def system_extra() -> str:
        parts = [earlier() if earlier is not None else "", api_system_text(session)]
        return "\n\n".join(p for p in parts if p)

    session.system_extra = system_extra


def tool_mode_of(session: Any) -> str:
    """The mode a session presents its tools in ('native' for sessions without code mode)."""
    modes = getattr(session, "tool_modes", None)
    return modes.current() if modes is not None else "native"
