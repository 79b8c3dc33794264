"""What a session is told besides its conversation: project instructions and relevant memories.

Instructions are loaded when the session's first turn starts and again after each compaction;
files of a subdirectory join once the agent has read or edited a file there. Memories are chosen
at the start of every turn (and after a compaction) from the recent conversation. Each choice
leaves a marker in the transcript naming the memories given, and a save or delete from this
workstream (by the model's memory tool or the user's '#') leaves one too.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.engine import events as ev
from app.memory import instructions as instruction_files
from app.memory.limits import MemoryLimits
from app.memory.records import Memory, Visibility
from app.memory.relevance import memory_block

if TYPE_CHECKING:
    from app.engine.session import Session
    from app.memory.instructions import Instructions

RECENT_MESSAGES = 6  # messages of the conversation that choose the memories


def conversation_text(session: Session) -> str:
    """The recent user and assistant text: the query that picks memories."""
    recent = [m.content for m in session.messages if m.role in ("user", "assistant") and m.content]
    return "\n".join(recent[-RECENT_MESSAGES:])


class MemoryContext:
    """One session's instructions and memories, and the transcript markers about them."""

    def __init__(self, service: Any, session: Session, *, config_dir: Path | None) -> None:
        """`service` is a MemoryService (None: instructions only); the session gets this as its
        `memory_context`."""
        self.service = service
        self.workspace = session.tool_context.workspace
        self.config_dir = config_dir
        self.visibility = Visibility(workstream_id=session.workstream_id, workspace=str(self.workspace))
        self.instructions: Instructions | None = None
        self.memories: list[Memory] = []
        self.skill: dict[str, Any] | None = None  # {name, version, path, values, prompt} of a /skill start
        self._skill_looked_up = False
        self._session = weakref.ref(session)
        session.memory_context = self
        if service is not None:
            service.listeners.append(_WeakListener(self))

    @property
    def _limits(self) -> MemoryLimits:
        return getattr(self.service, "limits", None) or MemoryLimits()

    def system_text(self) -> str:
        """The instructions and the memories, for the system message."""
        parts = [self.instructions.render() if self.instructions else "",
                 memory_block(self.memories, self._limits.chars_per_memory),
                 f"# Skill: {self.skill['name']}\n{self.skill['prompt']}" if self.skill else ""]
        return "\n\n".join(p for p in parts if p)

    async def start_turn(self, session: Session) -> None:
        """Before a turn's first request: instructions (first time), then this turn's memories."""
        if self.instructions is None:
            await self.reload_instructions()
        if not self._skill_looked_up:
            await self._restore_skill(session)
        await self.choose_memories(session)

    async def start_skill(self, session: Session, skill: dict[str, Any]) -> None:
        """This workstream starts from a skill: its prompt joins the system message; the name,
        content version and values are stored with the workstream (and restored on resume)."""
        self.skill, self._skill_looked_up = skill, True
        if session.store is not None and session.workstream_id:
            await session.store.set_config(session.workstream_id, "skill", skill)

    async def _restore_skill(self, session: Session) -> None:
        self._skill_looked_up = True
        if session.store is not None and session.workstream_id and hasattr(session.store, "get_config"):
            self.skill = (await session.store.get_config(session.workstream_id)).get("skill") or self.skill
        if self.skill and self.skill.get("settings"):  # a resumed skill workstream: temperature, budget
            from app.engine.skill_settings import apply_skill_settings

            await apply_skill_settings(session, self.skill["settings"], restoring=True)

    async def before_request(self, session: Session) -> None:
        """Before each request: instructions of subdirectories the agent has just worked in."""
        if self.instructions is None:
            return
        added = await asyncio.to_thread(self.instructions.add_for_paths, set(session.tool_context.read_paths),
                                        self.workspace)
        if added:
            session.emit(ev.Notice("Instructions added: " + ", ".join(str(f.path) for f in added)))

    async def after_compaction(self, session: Session) -> None:
        """The summary replaced the context: read the instructions again, choose memories again."""
        await self.reload_instructions()
        await self.choose_memories(session)

    async def reload_instructions(self) -> Instructions:
        self.instructions = await asyncio.to_thread(instruction_files.load, self.workspace, self.config_dir,
                                                    file_limit=self._limits.instruction_chars,
                                                    import_depth=self._limits.import_depth)
        return self.instructions

    async def choose_memories(self, session: Session) -> None:
        if self.service is None:
            return
        try:
            self.memories = await self.service.select(self.visibility, conversation_text(session))
        except Exception as error:  # noqa: BLE001 - a turn goes on without memories, and says so
            logging.getLogger("whimbrel").exception("choosing memories failed")
            session.emit(ev.Notice(f"Memories could not be read, so this turn has none: {error}", level="warning"))
            return
        if self.memories:
            names = ", ".join(m.name for m in self.memories)
            session.emit(ev.Notice(f"◆ memories given to this turn: {names}"))

    def on_change(self, workstream_id: str, action: str, memory: Memory) -> None:
        """A memory saved or deleted somewhere: a marker here when it was from this workstream."""
        session = self._session()
        if session is None or workstream_id != self.visibility.workstream_id:
            return
        session.emit(ev.Notice(f"◆ memory {action}: {memory.name} ({memory.type}, {memory.scope})"))


class _WeakListener:
    """Calls a MemoryContext's on_change while it lives (the service outlives sessions)."""

    def __init__(self, context: MemoryContext) -> None:
        self._ref = weakref.ref(context)

    @property
    def alive(self) -> bool:
        return self._ref() is not None

    def __call__(self, workstream_id: str, action: str, memory: Memory) -> None:
        context = self._ref()
        if context is not None:
            context.on_change(workstream_id, action, memory)


def attach_memory(session: Session, service: Any, config_dir: Path | None = None) -> MemoryContext:
    """Give `session` its instructions and memories, and its tools the memory service; the user's
    files come from `config_dir`, else the service's."""
    session.tool_context.memory = service
    if config_dir is None and service is not None:
        config_dir = service.config_dir
    return MemoryContext(service, session, config_dir=config_dir)
