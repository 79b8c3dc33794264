"""Per-workstream state the tools share: workspace root, files read, live output sink, limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from tools.pinned_fetch import WebAccess


def _discard(_text: str) -> None:
    """Default output sink: live output is simply not shown."""


def _discard_progress(_progress: float, _total: float | None, _message: str | None) -> None:
    """Default progress sink: progress is simply not shown."""


@dataclass
class ToolContext:
    """What a tool may know about where and how it runs.

    `read_paths` holds resolved paths read by read_file (edit_file requires one); write_file
    and edit_file add the paths they write. For parallel calls the engine can give each call
    its own `on_output` with `dataclasses.replace(ctx, on_output=...)`: the copy shares the
    same `read_paths` set. `on_progress(progress, total, message)` reports progress (MCP tools);
    `workstream_id` says whose call it is (MCP sampling/elicitation are routed by it). `web` holds
    what web tools may reach; `ask_model` lets a tool (web_fetch's question) ask the workstream's model.
    """

    workspace: Path
    read_paths: set[Path] = field(default_factory=set)
    on_output: Callable[[str], None] = _discard
    on_progress: Callable[[float, float | None, str | None], None] = _discard_progress
    workstream_id: str = ""
    call_id: str = ""  # the call being run (sub-agents nest their progress under it)
    bash_timeout: float = 120.0
    output_limit: int = 30_000
    memory: Any = None  # an app.memory.service.MemoryService: the memory and recall tools use it
    wrap_command: Callable[[list[str]], Any] | None = None  # argv → app.sandbox.jail.Launch: bash's sandbox (tools/guard.py)
    web: WebAccess = field(default_factory=WebAccess)
    search_backend: Any = None  # a tools.web_search.SearchBackend: web_search is offered only with one
    ask_model: Callable[[str], Awaitable[str]] | None = None  # one prompt → the workstream model's answer
    notify: Callable[[str], None] | None = None  # tell the user now (the app notifies and marks the tab)
    # path → why it may not be read unasked ("" when it may): what search leaves out (the gate's path rules and
    # secrets, tools/guard.py); None: only secret files are left out
    unreadable: Callable[[Path], str] | None = None

    def __post_init__(self) -> None:
        self.workspace = Path(self.workspace).expanduser().resolve()
