"""The tab bar: one tab per workstream with live state, approvals waiting and unread output, and who
holds a workstream open in another instance (its tab is read-only here: "title ⇄ bob@host")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget

from app.vocabulary.inert import inert
from widgets.status_bar import STATE_STYLES

if TYPE_CHECKING:
    from app.engine.workstream import Workstream

SPINNER = "◐◓◑◒"
STATE_GLYPHS = {"idle": "●", "thinking": "◐", "running": "◐", "attention": "●", "error": "✖"}
# The main screen's key to the next workstream waiting for approval. Declared beside the marker that
# names it, so the tab bar names the key in force without importing the window; MainScreen binds it.
NEXT_ATTENTION = Binding("ctrl+g", "app.next_attention", "Attention", priority=True, id="next_attention")
OWNER_GLYPH = "⇄"  # before the name of whoever holds a tab's workstream in another instance
OWNER_CHARS = 16  # at most this much of that name (it comes from the store: a teammate's `[team] name`)


def owner_label(lease) -> str:
    """Who holds `lease`, short and inert for a tab: its `who` (else its host), on one line, cut."""
    name = " ".join(inert(str(getattr(lease, "who", None) or lease.owner.host), multiline=False).split())
    return name if len(name) <= OWNER_CHARS else name[:OWNER_CHARS - 1] + "…"


@dataclass
class TabInfo:
    """What one tab shows; built from a Workstream so snapshots can use fixed values too."""

    name: str
    state: str
    pending: int = 0
    unread: bool = False
    owner: str = ""  # who holds it in another instance (read-only here), as `owner_label` made it

    @classmethod
    def of(cls, workstream: Workstream) -> TabInfo:
        worktree = "⎇ " if getattr(workstream, "worktree", None) is not None else ""  # its own git worktree
        held = getattr(workstream, "held_by", None)
        return cls(worktree + inert(workstream.name, multiline=False), workstream.state, len(workstream.pending),
                   workstream.unread, owner_label(held) if held is not None else "")


class TabBar(Widget):
    """Renders tabs; a pulse (spinner) runs on busy tabs unless animations are off. Click selects."""

    DEFAULT_CSS = "TabBar { height: 1; }"

    @dataclass
    class Selected(Message):
        index: int

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tabs: list[TabInfo] = []
        self.active = 0
        self._frame = 0
        self._spans: list[tuple[int, int]] = []

    def on_mount(self) -> None:
        if self.app.animation_level != "none":  # paused while no tab is busy: an idle app is not woken
            self._pulse_timer = self.set_interval(0.25, self._pulse, pause=not self._busy())

    _pulse_timer: Timer | None = None

    def _busy(self) -> bool:
        return any(t.state in ("thinking", "running") for t in self.tabs)

    def _pulse(self) -> None:
        if self._busy():
            self._frame += 1
            self.refresh()

    def show(self, tabs: list[TabInfo], active: int) -> None:
        self.tabs, self.active = tabs, active
        if self._pulse_timer is not None:
            self._pulse_timer.resume() if self._busy() else self._pulse_timer.pause()
        self.refresh()

    def render(self) -> Text:
        text = Text(" ", no_wrap=True, overflow="ellipsis")
        self._spans = []
        for index, tab in enumerate(self.tabs):
            start = len(text)
            current = index == self.active
            glyph = STATE_GLYPHS.get(tab.state, "●")
            if tab.state in ("thinking", "running"):
                glyph = SPINNER[self._frame % len(SPINNER)]
            text.append(f" {index + 1} ", style="reverse bold" if current else "dim")
            name = tab.name if len(tab.name) <= 24 else tab.name[:23] + "…"
            text.append(f"{name} ", style="reverse bold" if current else ("bold" if tab.unread else ""))
            if tab.owner:
                text.append(f"{OWNER_GLYPH} {inert(tab.owner, multiline=False)} ", style="italic")
            text.append(glyph, style=STATE_STYLES.get(tab.state, ""))
            if tab.pending:
                text.append(f" ⚑{tab.pending}", style="bold magenta")
            elif tab.unread and not current:
                text.append(" •", style="bold cyan")
            self._spans.append((start, len(text)))
            text.append("  ")
        waiting = sum(t.pending for i, t in enumerate(self.tabs) if i != self.active)
        if waiting:
            text.append(f"  ⚑ {waiting} waiting · {self._attention_key()}", style="bold magenta")
        return text

    def _attention_key(self) -> str:
        """The key in force that jumps to the next workstream waiting (Ctrl+G unless [keymap] moved it)."""
        from widgets.key_hints import binding_keys, key_display

        keymap = getattr(self.app, "configured_keymap", None) or {}
        keys = binding_keys(keymap.get(NEXT_ATTENTION.id or "") or NEXT_ATTENTION.key)
        return key_display(keys[0]).lower() if keys else ""

    def on_click(self, event: events.Click) -> None:
        for index, (start, end) in enumerate(self._spans):
            if start <= event.x < end:
                self.post_message(self.Selected(index))
                return
