"""The tool registry: specs loaded from tools/*.json, bound to their implementations by name."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.bash import bash
from tools.files import edit_file, read_file, write_file
from tools.man import man
from tools.math_tool import math
from tools.memory_tools import memory, recall
from tools.notify import notify
from tools.search import search
from tools.session_bound import needs_a_session
from tools.skill_tool import skill
from tools.web_fetch import web_fetch
from tools.web_search import web_search
from tools.spec import Implementation, ToolSpec  # re-exported: most callers import them from here


BUILTIN_IMPLEMENTATIONS: dict[str, Implementation] = {
    "bash": bash,
    "read_file": read_file,
    "write_file": write_file,
    "edit_file": edit_file,
    "search": search,
    "memory": memory,
    "recall": recall,
    "skill": skill,
    "web_fetch": web_fetch,
    "web_search": web_search,
    "math": math,
    "man": man,
    "notify": notify,
    "task": needs_a_session,
    "plan": needs_a_session,
    "watch": needs_a_session,
    "run_code": needs_a_session,  # code mode: bound per session by app/engine/code_mode.py
}

METADATA_KEYS = ("auto_approve", "agent", "task_agent", "plan_agent", "read_only", "primary_key", "path_args",
                 "approval_reason", "category")
SCHEMA_DIR = Path(__file__).parent


def spec_from_json(data: dict[str, Any], implementation: Implementation) -> ToolSpec:
    """Split a tools/*.json document into the model-facing schema and the metadata."""
    schema = {k: v for k, v in data.items() if k not in METADATA_KEYS}
    return ToolSpec(
        name=schema["function"]["name"], schema=schema, implementation=implementation,
        auto_approve=bool(data.get("auto_approve", False)), agent=bool(data.get("agent", True)),
        task_agent=bool(data.get("task_agent", True)), primary_key=data.get("primary_key"),
        path_args=tuple(data.get("path_args", ())),
        approval_reason=data.get("approval_reason") or "needs approval to run",
        plan_agent=bool(data.get("plan_agent", False)), read_only=bool(data.get("read_only", False)),
        category=data.get("category", "other"), builtin=True)


@dataclass
class ToolRegistry:
    """Tools by name, in registration order."""

    _specs: dict[str, ToolSpec] = field(default_factory=dict)

    @classmethod
    def load_builtin(cls) -> ToolRegistry:
        """Load every tools/*.json and bind its implementation; a schema without one is a packaging bug."""
        registry = cls()
        for path in sorted(SCHEMA_DIR.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            name = data["function"]["name"]
            if name not in BUILTIN_IMPLEMENTATIONS:
                raise LookupError(f"{path.name}: no implementation for built-in tool {name!r}")
            registry.register(spec_from_json(data, BUILTIN_IMPLEMENTATIONS[name]))
        return registry

    def register(self, spec: ToolSpec) -> None:
        """Add or replace a tool (MCP tools arrive this way)."""
        self._specs[spec.name] = spec

    def get(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def names(self) -> list[str]:
        return list(self._specs)

    def schemas(self, agent: bool = True) -> list[dict[str, Any]]:
        """The tool list to send to a model: the main agent's (agent=True) or a task sub-agent's."""
        return [s.schema for s in self._specs.values() if (s.agent if agent else s.task_agent)]
