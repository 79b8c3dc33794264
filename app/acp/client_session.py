"""A workstream backed by an external ACP agent (`[agents.NAME]`): the agent runs the turn, Whimbrel shows it.

`ExternalAgentSession` is a Session whose turn goes to the agent instead of a model: the agent's updates
become the same engine events a model turn emits (text, reasoning, tool cards), its permission requests
go to Whimbrel's approval modal, and every message is stored, so the workstream is resumable (through the
agent's session/load where it supports it). An agent that crashes, hangs or breaks the protocol fails
the turn with the reason; the app goes on.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.acp.connection import AgentConnection, AgentFailed
from app.acp.turn_record import TurnRecord
from app.engine import events as ev
from app.engine.session import Session
from app.vocabulary.messages import Message

CANCEL_GRACE = 5.0  # seconds an agent gets to end a cancelled turn before its process is stopped
from app.acp import AGENT_KEY, AGENT_SESSION_KEY  # noqa: F401  (re-exported for the app glue)


class ExternalAgentSession(Session):
    """The conversation of one workstream with an external agent."""

    def __init__(self, *, agent: Any, **kwargs: Any) -> None:
        super().__init__(provider=None, **kwargs)
        self.agent = agent  # app.settings.config.AgentConfig
        self.connection: AgentConnection | None = None
        self.agent_session_id: str | None = None
        self.stored_agent_session: str | None = None  # set on resume
        self._record: TurnRecord | None = None
        self._replaying = False
        self._closing: set[asyncio.Task] = set()
        from app.acp.agent_usage import AgentUsage
        from app.acp.offered import Offered

        self.offered = Offered(self)  # the agent's reads, writes and terminals on Whimbrel's side
        self.agent_usage = AgentUsage(self)  # what the agent reports of its tokens and cost

    # -- the turn --------------------------------------------------------------------------
    async def run_turn(self, text: str, images: list[dict] | None = None) -> None:
        if images:  # Session.run_turn's signature; an ACP prompt here carries text only
            self.emit(ev.Notice("Images are not sent to external agents: only the text went.", level="warning"))
        await self._persist(Message(role="user", content=text))
        self.emit(ev.UserMessageAdded(text))
        self.usage.turn += 1
        self.emit(ev.StateChanged("thinking"))
        self._record = TurnRecord(self)
        self.agent_usage.turn_started()
        outcome = "done"
        try:
            await self._ensure_session()
            import acp

            response = await self.connection.call(self.connection.conn.prompt(
                session_id=self.agent_session_id, prompt=[acp.text_block(text)]), "the prompt")
            if response.stop_reason not in ("end_turn", "cancelled"):
                self.emit(ev.Notice(f"Agent {self.agent.name} stopped: {response.stop_reason}.", level="warning"))
        except asyncio.CancelledError:
            await asyncio.shield(self._cancel_agent())
            await asyncio.shield(self._record.close(interrupted=True))
            self.emit(ev.Notice("Turn cancelled.", level="warning"))
            self.emit(ev.StateChanged("idle"))
            self.emit(ev.TurnFinished("cancelled"))
            raise
        except AgentFailed as failure:
            outcome = "error"
            await self._record.close(interrupted=True)
            self.emit(ev.Notice(f"{failure} The workstream's agent stopped; the next prompt starts it again.",
                                level="error"))
            await self._drop_connection()
        else:
            await self._record.close(interrupted=False)
            await self.agent_usage.turn_ended(response.usage)
        finally:
            self._record = None
        self.emit(ev.StateChanged("error" if outcome == "error" else "idle"))
        self.emit(ev.TurnFinished(outcome))

    async def _ensure_session(self) -> None:
        """Start the agent and open its session: a new one, or the stored one via session/load."""
        if self.connection is not None and self.agent_session_id is not None:
            return
        from app.acp.agent_client import AgentClient

        self.connection = AgentConnection(self.agent.name, self.agent.command, self.agent.args, self.agent.env,
                                          self.tool_context.workspace, AgentClient(self))
        await self.connection.start()
        cwd = str(self.tool_context.workspace)
        if self.stored_agent_session and self.connection.can_load:
            self._replaying = True  # its history replay is already in the store: not shown twice
            try:
                await self.connection.call(self.connection.conn.load_session(
                    cwd=cwd, session_id=self.stored_agent_session, mcp_servers=[]), "session/load", 30.0)
                self.agent_session_id = self.stored_agent_session
                self.agent_usage.session_opened(loaded=True)
                return
            except AgentFailed as failure:
                self.emit(ev.Notice(f"{failure}; starting a new agent session (it does not remember this "
                                    "conversation).", level="warning"))
            finally:
                self._replaying = False
        elif self.stored_agent_session:
            self.emit(ev.Notice(f"Agent {self.agent.name} cannot load earlier sessions: this one starts fresh "
                                "(the history above stays for you to read).", level="warning"))
        response = await self.connection.call(self.connection.conn.new_session(cwd=cwd, mcp_servers=[]),
                                              "session/new", 30.0)
        self.agent_session_id = self.stored_agent_session = response.session_id
        self.agent_usage.session_opened(loaded=False)
        if self.store is not None:
            await self.store.set_config(self.workstream_id, AGENT_SESSION_KEY, response.session_id)

    async def _cancel_agent(self) -> None:
        """session/cancel, then CANCEL_GRACE for the agent to end the turn; else its process is stopped."""
        connection = self.connection
        if connection is None or connection.conn is None or self.agent_session_id is None:
            return
        try:
            await asyncio.wait_for(connection.conn.cancel(session_id=self.agent_session_id), CANCEL_GRACE)
        except Exception:  # noqa: BLE001 - already gone or not answering: stopped below
            await self._drop_connection()

    async def _drop_connection(self) -> None:
        """Stop the agent's process; the close goes on if this is cancelled, and `aclose` waits for it."""
        connection, self.connection, self.agent_session_id = self.connection, None, None
        await asyncio.shield(self.offered.close())
        if connection is not None:
            closing = asyncio.ensure_future(connection.aclose())
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
            await asyncio.shield(closing)

    async def aclose(self) -> None:
        """Stop the agent's process (the workstream closes or the app quits), and any still closing."""
        await self._drop_connection()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    # -- what the agent asks of Whimbrel (app/acp/agent_client.py calls these) ----------------
    @property
    def current_record(self) -> TurnRecord | None:
        """The running turn's record (None between turns: nothing the agent asks for is allowed then)."""
        return self._record

    def on_update(self, update: Any) -> None:
        if self._replaying:
            return
        if getattr(update, "session_update", "") == "usage_update":
            self.agent_usage.on_update(update)
        elif self._record is not None:
            self._record.update(update)

    async def ask_permission(self, tool_call: Any, options: list[Any]) -> str | None:
        """Whimbrel's approval modal decides; returns the chosen option id, None for cancelled."""
        if self._record is None:
            return None
        return await self._record.ask(tool_call, options)
