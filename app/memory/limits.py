"""The limits of memories, recall and instruction files, from `[memory]` in config.toml.

The defaults are the issue's: 32 KB of content per memory, 5 memories per turn. Config validation
(app/settings/config.py) checks each is a whole number at or above its minimum before it gets here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MemoryLimits:
    """How much memory and instruction text the model is given, and how much a memory may hold."""

    content_bytes: int = 32 * 1024  # UTF-8 bytes of one memory's content
    per_turn: int = 5  # memories given to each turn
    chars_per_memory: int = 1_500  # characters of each of them in the system message
    results: int = 20  # memory search/list and recall results when the model asks for no number
    instruction_chars: int = 64 * 1024  # characters of one instruction file given to the model
    import_depth: int = 5  # levels of @imports followed in instruction files

    @classmethod
    def from_config(cls, config: Any) -> MemoryLimits:
        """The limits a loaded Config sets (its defaults when `config` is None)."""
        if config is None:
            return cls()
        return cls(content_bytes=config.memory_content_kb * 1024, per_turn=config.memory_per_turn,
                   chars_per_memory=config.memory_chars_per_memory, results=config.memory_results,
                   instruction_chars=config.instruction_kb * 1024, import_depth=config.instruction_import_depth)
