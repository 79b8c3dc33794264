"""Per-workstream state the tools share: workspace root, files read, live output sink, limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


def _discard(_text: str) -> None:
    """Default output sink: live output is simply not shown."""


@dataclass
class ToolContext:
    """What a tool may know about where and how it runs.

    `read_paths` holds resolved paths read by read_file (edit_file requires one); write_file
    and edit_file add the paths they write. For parallel calls the engine can give each call
    its own `on_output` with `dataclasses.replace(ctx, on_output=...)`: the copy shares the
    same `read_paths` set.
    """

    workspace: Path
    read_paths: set[Path] = field(default_factory=set)
    on_output: Callable[[str], None] = _discard
    bash_timeout: float = 120.0
    output_limit: int = 30_000

    def __post_init__(self) -> None:
        self.workspace = Path(self.workspace).expanduser().resolve()
