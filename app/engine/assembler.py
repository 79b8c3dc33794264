"""Assemble streamed tool-call fragments into whole calls, tolerating sloppy local servers."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from app.vocabulary.messages import ToolCall
from app.providers.base import ToolCallChunk


@dataclass
class _Partial:
    id: str = ""
    name: str = ""
    arguments: str = ""


class ToolCallAssembler:
    """Collects `ToolCallChunk`s by index; `calls()` returns them with ids filled in and names trimmed."""

    def __init__(self) -> None:
        self._parts: dict[int, _Partial] = {}

    def add(self, chunk: ToolCallChunk) -> None:
        part = self._parts.setdefault(chunk.index, _Partial())
        if chunk.id:
            part.id = chunk.id
        if chunk.name:
            part.name += chunk.name if not part.name or part.name != chunk.name else ""
        part.arguments += chunk.arguments or ""

    def __bool__(self) -> bool:
        return bool(self._parts)

    def calls(self) -> list[ToolCall]:
        seen: set[str] = set()
        calls = []
        for index in sorted(self._parts):
            part = self._parts[index]
            call_id = part.id.strip()
            if not call_id or call_id in seen:  # small local models send "" or repeat ids
                call_id = f"call_{uuid.uuid4().hex[:12]}"
            seen.add(call_id)
            calls.append(ToolCall(id=call_id, name=part.name.strip(), arguments=part.arguments))
        return calls
