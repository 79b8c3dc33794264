"""Whimbrel as an ACP agent: each ACP session is a workstream, driven by the client over stdio.

Turns run on the engine unchanged; their events become session updates, sent in order by one pump per
session. Calls are decided by the permission engine, as in the TUI (rules of config.toml, the project
file and the workstream, the session's mode, risk, hooks, the sandbox; audit rows): only a call the
engine asks about goes to the client as `session/request_permission`, and the answer is the user's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.acp.tool_calls import locations, tool_kind
from app.acp.updates import history_updates, tool_title, turn_usage, update_for, usage_update
from app.engine import events as ev
from app.headless.policy import MODES

MODE_NAMES = {"ask": "Ask", "accept-edits": "Accept edits", "plan": "Plan", "auto": "Auto"}
MODE_DESCRIPTIONS = {
    "ask": "reading runs; everything else asks for permission",
    "accept-edits": "file edits in the workspace run; commands ask",
    "plan": "only reading runs; nothing is changed",
    "auto": "every call in the workspace runs",
}
ALLOW, ALWAYS, REJECT, OVERRIDE = "allow", "always", "reject", "override"


@dataclass
class AcpSession:
    """One ACP session: its workstream, permission mode, running turn and the pump of its updates."""

    workstream: Any
    workdir: Path
    mode: str = "ask"
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)
    turn: asyncio.Task | None = None
    pump: asyncio.Task | None = None
    cancel_requested: bool = False
    last_error: str = ""
    outcome: str = ""
    servers: Any = None  # app.acp.session_mcp.SessionServers: the MCP servers the client handed over
    gauge: tuple[int, int | None] = (0, None)  # the latest request's prompt tokens and the context window
    turn_usage: list[ev.UsageRecorded] = field(default_factory=list)  # this turn's requests, for the answer
    cost_before: float = 0.0  # USD the workstream's stored turns cost before this process (a loaded session)
    diffs: dict[str, Any] = field(default_factory=dict)  # call id -> the ACP diff of a write or edit not yet done


class WhimbrelAgent:
    """The ACP `Agent`: initialize, sessions (new / load), prompt, cancel, modes and the model option."""

    def __init__(self, *, store: Any, models: Any, registry: Any, bash_timeout: float = 120.0,
                 output_limit: int = 30_000, auto_compact_pct: float = 80.0, default_mode: str = "ask",
                 config: Any = None, tool_mode: str | None = None, permissions: Any = None) -> None:
        self.store, self.models = store, models
        self.config, self.tool_mode = config, tool_mode  # [tools] settings; --tools-mode (code mode)
        self.registry = registry
        self.permissions = permissions  # workdir -> an unloaded app.engine.guards.PermissionSetup
        self._setups: dict[Path, Any] = {}  # loaded, per workdir
        self._notices: list[str] = []  # broken rules, an unreviewed project file: told with the next prompt
        self._local_registry = self.registry  # before initialize says what the client offers
        self.bash_timeout, self.output_limit, self.auto_compact_pct = bash_timeout, output_limit, auto_compact_pct
        self.conn: Any = None
        self.default_mode = default_mode
        self.sessions: dict[str, AcpSession] = {}
        self._managers: dict[Path, Any] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # -- the protocol ----------------------------------------------------------------------
    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **kwargs: Any) -> Any:
        import acp
        from acp.schema import AgentCapabilities, Implementation, McpCapabilities

        from app.acp.client_tools import client_routed

        if client_capabilities is not None:  # files and commands go through what the client offers
            self.registry = client_routed(self._local_registry, client_capabilities, lambda: self.conn)
        # ACP: the client's version when the agent speaks it, else the latest the agent speaks (only one so far)
        return acp.InitializeResponse(protocol_version=acp.PROTOCOL_VERSION,
                                      agent_capabilities=AgentCapabilities(
                                          load_session=True, mcp_capabilities=McpCapabilities(http=True, sse=True)),
                                      agent_info=Implementation(name="whimbrel", version="0.1.0"))

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> Any:
        import acp

        workdir = self._workdir(cwd)
        await self._load_permissions(workdir)
        workstream, _evicted = await self._manager(workdir).create()
        session = self._adopt(workstream, workdir)
        await self._connect_servers(session, mcp_servers)
        return acp.NewSessionResponse(session_id=workstream.id, modes=self._modes(session),
                                      config_options=self._config_options(session))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any) -> Any:
        import acp
        from app.engine.ownership import HeldElsewhere

        workdir = self._workdir(cwd)
        await self._load_permissions(workdir)
        session = self.sessions.get(session_id)
        if session is None:
            try:
                workstream, _evicted = await self._manager(workdir).open(session_id, only_if_free=True)
            except LookupError as error:
                raise acp.RequestError.invalid_params({"sessionId": session_id, "reason": str(error)}) from None
            except HeldElsewhere as held:
                raise acp.RequestError.invalid_request({"sessionId": session_id, "reason": str(held)}) from None
            session = self._adopt(workstream, workdir)
            session.cost_before = sum(row.cost or 0.0 for row in await self.store.list_usage(session_id))
        await self._connect_servers(session, mcp_servers)
        for update in history_updates(session.workstream.session.messages, session.workdir):
            await self.conn.session_update(session_id=session_id, update=update)
        return acp.LoadSessionResponse(modes=self._modes(session), config_options=self._config_options(session))

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> Any:
        import acp

        session = self._session(session_id)
        if mode_id not in MODES:
            raise acp.RequestError.invalid_params({"modeId": mode_id, "known": list(MODES)})
        session.mode = session.workstream.session.guard.gate.mode = mode_id
        return acp.SetSessionModeResponse()

    async def set_config_option(self, config_id: str, session_id: str, value: Any, **kwargs: Any) -> Any:
        import acp

        session = self._session(session_id)
        if config_id != "model" or not isinstance(value, str) or value not in self.models:
            raise acp.RequestError.invalid_params({"configId": config_id, "value": value,
                                                   "models": self.models.aliases()})
        await session.workstream.session.set_model(value)
        return acp.SetSessionConfigOptionResponse(config_options=self._config_options(session))

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> Any:
        import acp

        session = self._session(session_id)
        if session.turn is not None and not session.turn.done():
            raise acp.RequestError.invalid_request({"reason": "a prompt is already running in this session"})
        text = "\n".join(block.text for block in prompt if getattr(block, "type", "") == "text")
        session.cancel_requested, session.last_error, session.outcome = False, "", ""
        session.turn_usage = []
        session.turn = asyncio.create_task(session.workstream.submit(text))
        await asyncio.wait([session.turn])
        await session.queue.join()  # every update of the turn reaches the client before the answer
        if session.turn.cancelled():
            return acp.PromptResponse(stop_reason="cancelled")
        error = session.turn.exception()
        if error is not None:
            raise acp.RequestError.internal_error({"reason": f"{type(error).__name__}: {error}"})
        if session.outcome == "error":
            raise acp.RequestError.internal_error({"reason": session.last_error or "the turn failed"})
        return acp.PromptResponse(stop_reason="end_turn", usage=turn_usage(session.turn_usage))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.turn is not None and not session.turn.done():
            session.cancel_requested = True
            session.turn.cancel()

    async def authenticate(self, method_id: str, **kwargs: Any) -> Any:
        """No authentication method is offered (initialize lists none), so whichever is named does not exist."""
        import acp

        raise acp.RequestError.invalid_params({"methodId": method_id, "reason": "this agent offers no authentication "
                                               "methods; the model's credentials come from its configuration"})

    async def close(self) -> None:
        """At the end of the connection: stop turns and pumps, give the leases back."""
        for session in self.sessions.values():
            for task in (session.turn, session.pump):
                if task is not None and not task.done():
                    task.cancel()
        await asyncio.gather(*(s.servers.stop() for s in self.sessions.values() if s.servers is not None),
                             return_exceptions=True)
        for manager in self._managers.values():
            await manager.ownership.release_all()

    # -- sessions ----------------------------------------------------------------------------
    def _workdir(self, cwd: str) -> Path:
        import acp

        path = Path(cwd)
        if not path.is_absolute() or not path.is_dir():
            raise acp.RequestError.invalid_params({"cwd": cwd, "reason": "cwd must be an existing absolute directory"})
        return path.resolve()

    def _manager(self, workdir: Path):
        from app.engine.workstreams import WorkstreamManager

        if workdir not in self._managers:
            self._managers[workdir] = WorkstreamManager(
                store=self.store, session_factory=lambda i, s, listener: self._make_session(workdir, i, s, listener),
                model=self.models.settings(self.models.default).model, workdir=str(workdir))
        return self._managers[workdir]

    async def _load_permissions(self, workdir: Path) -> None:
        """The permission engine's rules and hooks for sessions in `workdir`, loaded once."""
        if self.permissions is not None and workdir not in self._setups:
            setup = self.permissions(workdir)
            loaded = await setup.load()
            self._setups[workdir] = setup
            self._notices.extend(loaded.notices)

    def _adopt(self, workstream, workdir: Path) -> AcpSession:
        session = AcpSession(workstream, workdir, mode=self.default_mode)
        workstream.session.guard.gate.mode = session.mode
        _tell(session, self._notices)  # what loading the rules found wrong, once: the first session hears it
        self._notices.clear()
        workstream.listener = lambda event: self._on_event(session, event)
        session.pump = asyncio.create_task(self._pump(session))
        self.sessions[workstream.id] = session
        return session

    async def _connect_servers(self, session: AcpSession, mcp_servers: Any) -> None:
        """The client's MCP servers for this session (those of an earlier session/new or load replaced)."""
        from app.acp.session_mcp import SessionServers, server_configs

        configs, problems = server_configs(mcp_servers)
        if session.servers is not None:
            await session.servers.stop()
            session.servers, session.workstream.session.registry = None, self.registry
        if configs:
            session.servers = SessionServers(configs, session.workdir)
            problems += await session.servers.start(session.workstream.session)
        _tell(session, problems)

    def _session(self, session_id: str) -> AcpSession:
        import acp

        session = self.sessions.get(session_id)
        if session is None:
            raise acp.RequestError.invalid_params({"sessionId": session_id, "reason": "unknown session"})
        return session

    def _make_session(self, workdir: Path, workstream_id: str, saved, listener):
        from app.engine.session import Session
        from app.engine.tool_setup import configure_tools, settings_with_mode
        from tools.context import ToolContext

        context = ToolContext(workspace=workdir, bash_timeout=self.bash_timeout, output_limit=self.output_limit)
        alias = saved.model_alias if saved.model_alias in self.models else None
        setup = self._setups.get(workdir)
        guard = setup.guard_for(workstream_id, saved.settings) if setup is not None else None
        session = Session(workstream_id=workstream_id, provider=None, registry=self.registry, tool_context=context,
                          emit=listener, store=self.store, messages=saved.messages, context_start=saved.context_start,
                          models=self.models, model_alias=alias, auto_compact_pct=self.auto_compact_pct, guard=guard)
        if saved.compaction is not None:
            session.restore_compaction(*saved.compaction)
        configure_tools(session, self.config, settings_with_mode(saved.settings, self.tool_mode))
        return session

    def _modes(self, session: AcpSession) -> Any:
        from acp.schema import SessionMode, SessionModeState

        return SessionModeState(current_mode_id=session.mode, available_modes=[
            SessionMode(id=mode, name=MODE_NAMES[mode], description=MODE_DESCRIPTIONS[mode]) for mode in MODES])

    def _config_options(self, session: AcpSession) -> list[Any]:
        from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption

        current = session.workstream.session.model_alias or self.models.default
        return [SessionConfigOptionSelect(id="model", name="Model", type="select", current_value=current, options=[
            SessionConfigSelectOption(value=alias, name=alias) for alias in self.models.aliases()])]

    # -- events -> updates -------------------------------------------------------------------
    def _on_event(self, session: AcpSession, event: ev.EngineEvent) -> None:
        """Each event becomes its update as it is emitted (a write's diff is of the file before the write); the
        pump sends them in order. Approvals are answered by the pump."""
        if isinstance(event, ev.Notice) and event.level in ("warning", "error"):
            if event.level == "error":
                session.last_error = event.text  # the prompt's JSON-RPC error says it
            _tell(session, [event.text])
            return
        if isinstance(event, ev.TurnFinished):
            session.outcome = event.outcome
        elif isinstance(event, ev.UsageUpdated):
            session.gauge = (event.prompt_tokens, event.context_window)
        if isinstance(event, ev.UsageRecorded):
            session.turn_usage.append(event)
            update = usage_update(event, *session.gauge, session.cost_before)  # the gauge as of this request
        elif isinstance(event, ev.ApprovalRequested):
            update = event
        else:
            update = update_for(event, session.workdir, session.diffs)
        if update is not None:
            session.queue.put_nowait(update)

    async def _pump(self, session: AcpSession) -> None:
        """Send the session's updates in order; approvals are answered here, by mode or by the client."""
        while True:
            event = await session.queue.get()
            try:
                if isinstance(event, ev.ApprovalRequested):
                    await self._approve(session, event)
                else:
                    await self.conn.session_update(session_id=session.workstream.id, update=event)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the client went away or refused an update: the turn goes on
                import logging

                logging.getLogger("whimbrel").warning("ACP update not delivered", exc_info=True)
            finally:
                session.queue.task_done()

    async def _approve(self, session: AcpSession, event: ev.ApprovalRequested) -> None:
        """The engine asks only where its rules, mode, risk and hooks say so: each such call goes to the client."""
        decisions: dict[str, ev.ApprovalDecision] = {}
        for item in event.items:
            if event.future.done():
                return  # the turn was cancelled meanwhile
            # the permission engine asked about this call (a program's call carries its own arguments)
            arguments = item.arguments or self._arguments(session, item.call_id)
            decisions[item.call_id] = await self._ask_client(session, item, arguments, event.future)
        if not event.future.done():
            event.future.set_result(decisions)

    async def _ask_client(self, session: AcpSession, item: ev.ApprovalItem, arguments: str,
                          turn_future: asyncio.Future) -> ev.ApprovalDecision:
        from acp.schema import PermissionOption, ToolCallUpdate

        from app.acp.updates import _raw_input

        if item.needs_override:  # critical risk: only a deliberate choice runs it, and no rule is saved
            options = [PermissionOption(option_id=OVERRIDE, name=f"Override the critical risk ({item.risk_reason}) "
                                        "and run it", kind="allow_once"),
                       PermissionOption(option_id=REJECT, name="Reject", kind="reject_once")]
        else:
            options = [PermissionOption(option_id=ALLOW, name="Allow", kind="allow_once"),
                       PermissionOption(option_id=ALWAYS, name="Always allow", kind="allow_always"),
                       PermissionOption(option_id=REJECT, name="Reject", kind="reject_once")]
        name = item.tool or item.name
        diff = session.diffs.get(item.call_id)
        request = asyncio.ensure_future(self.conn.request_permission(
            session_id=session.workstream.id,
            tool_call=ToolCallUpdate(tool_call_id=item.call_id, title=tool_title(item.name, item.preview),
                                     kind=tool_kind(name), status="pending", raw_input=_raw_input(arguments),
                                     locations=locations(name, arguments, session.workdir),
                                     content=[diff] if diff is not None else None),
            options=options))
        await asyncio.wait([request, turn_future], return_when=asyncio.FIRST_COMPLETED)
        if not request.done():
            request.cancel()  # the turn was cancelled while the client was asking
            return ev.ApprovalDecision("deny")
        try:
            outcome = request.result().outcome
        except Exception as error:  # noqa: BLE001 - the client failed to answer: nothing runs
            return ev.ApprovalDecision("deny", feedback=f"the permission request failed: {error}")
        chosen = getattr(outcome, "option_id", None) if outcome.outcome == "selected" else None
        if chosen == OVERRIDE and item.needs_override:
            return ev.ApprovalDecision("override")
        if chosen in (ALLOW, ALWAYS):
            return ev.ApprovalDecision("always" if chosen == ALWAYS else "approve")
        return ev.ApprovalDecision("deny")

    def _arguments(self, session: AcpSession, call_id: str) -> str:
        for message in reversed(session.workstream.session.messages):
            for call in message.tool_calls:
                if call.id == call_id:
                    return call.arguments
        return ""


def _tell(session: AcpSession, notices: list[str]) -> None:
    """Warnings (a retry, a cancelled turn, a rule or an MCP server the config got wrong) go to the agent's log, its
    stderr, which editors keep: the agent's message chunks are its answer, and a notice is not part of it."""
    import logging

    for notice in notices:
        logging.getLogger("whimbrel").warning("session %s: %s", session.workstream.id, notice)
