"""The approval modal: pending tool calls with previews and diffs; y / n / a / f / Esc."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from app.engine.events import ApprovalDecision, ApprovalItem
from app.vocabulary.inert import inert
from styles import STYLES_DIR
from widgets.diff_view import DiffView

Decisions = dict[str, ApprovalDecision]
HIDDEN_WARNING = ("⚠ contains control characters or direction overrides, shown as ␛ ␇ … and �: "
                  "what runs may differ from what it seems to say")


class ApprovalEntry(Vertical):
    """One pending call: name, reason, preview (bash command) and diff (file edits)."""

    def __init__(self, item: ApprovalItem) -> None:
        super().__init__(classes="approval-entry")
        self.item = item

    def compose(self) -> ComposeResult:
        title = Text()
        title.append(inert(self.item.name, multiline=False), style="bold")
        if self.item.reason:
            title.append(f"  — {self.item.reason}", style="italic")
        yield Static(title, classes="entry-title")
        yield Static(Text(self.item.preview), classes="entry-preview")
        if inert(self.item.preview) != self.item.preview:
            yield Static(Text(HIDDEN_WARNING, style="bold yellow"), classes="entry-hidden")
        if self.item.diff:
            yield DiffView(self.item.diff)

    def mark(self, decision: ApprovalDecision) -> None:
        label = {"approve": "approved", "always": "always allowed", "deny": "denied"}[decision.decision]
        name = inert(self.item.name, multiline=False)
        self.query_one(".entry-title", Static).update(Text(f"{name}  → {label}", style="dim"))
        self.add_class("-decided")
        self.remove_class("-current")


class ApprovalScreen(ModalScreen[Decisions]):
    """Decides each pending call in turn; dismisses with {call_id: decision} once all are decided."""

    CSS_PATH = STYLES_DIR / "approval.tcss"

    BINDINGS = [
        Binding("y", "decide('approve')", "Approve"),
        Binding("n", "decide('deny')", "Deny"),
        Binding("a", "decide('always')", "Always allow tool"),
        Binding("f", "feedback", "Deny with feedback"),
        Binding("escape", "escape", "Deny all", priority=True),
    ]

    def __init__(self, items: list[ApprovalItem], workstream_title: str = "") -> None:
        super().__init__()
        self.items = items
        self.workstream_title = workstream_title
        self.decisions: Decisions = {}
        self.index = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="approval-dialog"):
            yield Static(self._heading(), id="approval-heading")
            with VerticalScroll(id="approval-list"):
                for item in self.items:
                    yield ApprovalEntry(item)
            yield Input(placeholder="Tell the model what to do instead, then Enter (Esc to go back)",
                        id="approval-feedback")
            yield Static(
                "[b]y[/] approve   [b]n[/] deny   [b]a[/] always allow this tool here   "
                "[b]f[/] deny with feedback   [b]Esc[/] deny all",
                id="approval-keys",
            )

    def on_mount(self) -> None:
        self._highlight()

    def _heading(self) -> Text:
        """A Text, not markup: the workstream's title may come from the model."""
        where = f" in “{inert(self.workstream_title, multiline=False)}”" if self.workstream_title else ""
        count = len(self.items)
        return Text(f"Approve tool call {min(self.index + 1, count)} of {count}{where}")

    def _entries(self) -> list[ApprovalEntry]:
        return list(self.query(ApprovalEntry))

    def _highlight(self) -> None:
        entries = self._entries()
        if self.index < len(entries):
            entries[self.index].add_class("-current")
            entries[self.index].scroll_visible(animate=False)
        self.query_one("#approval-heading", Static).update(self._heading())

    def _record(self, decision: ApprovalDecision) -> None:
        entry = self._entries()[self.index]
        self.decisions[entry.item.call_id] = decision
        entry.mark(decision)
        self.index += 1
        if self.index >= len(self.items):
            self.dismiss(self.decisions)
        else:
            self._highlight()

    def action_decide(self, decision: str) -> None:
        self._record(ApprovalDecision(decision))  # type: ignore[arg-type]

    def action_feedback(self) -> None:
        feedback = self.query_one("#approval-feedback", Input)
        feedback.add_class("-visible")
        feedback.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        event.input.value = ""
        event.input.remove_class("-visible")
        self.set_focus(None)
        self._record(ApprovalDecision("deny", feedback=event.value))

    def action_escape(self) -> None:
        feedback = self.query_one("#approval-feedback", Input)
        if feedback.has_class("-visible"):
            feedback.remove_class("-visible")
            self.set_focus(None)
            return
        for item in self.items[self.index:]:
            self.decisions[item.call_id] = ApprovalDecision("deny")
        self.dismiss(self.decisions)
