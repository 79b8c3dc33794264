"""The approval modal: pending tool calls with why they ask, their risk, previews and diffs.

y / n one by one, Y all the rest, a always (the rule dialog), f deny with feedback, ! override a
critical-risk refusal, Esc deny the rest. With a judge configured, each call's advisory second
opinion is asked for when the modal opens and joins its entry when it arrives (app/permissions/judge.py).
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from app.engine.events import ApprovalDecision, ApprovalItem
from widgets.key_hints import key_hint
from app.vocabulary.inert import inert
from styles import STYLES_DIR
from widgets.diff_view import DiffView
from widgets.judge_line import JudgeLine

Decisions = dict[str, ApprovalDecision]
Judge = tuple[str, Callable[[ApprovalItem], Awaitable[Any]]]  # (alias, ask for one call's Opinion)
HIDDEN_WARNING = ("⚠ contains control characters or direction overrides, shown as ␛ ␇ … and �: "
                  "what runs may differ from what it seems to say")


class ApprovalEntry(Vertical):
    """One pending call: name, reason, preview (bash command) and diff (file edits)."""

    def __init__(self, item: ApprovalItem, judge: str | None = None) -> None:
        super().__init__(classes="approval-entry")
        self.item = item
        self.judge = judge  # the judge model's alias, when one gives second opinions

    def compose(self) -> ComposeResult:
        title = Text()
        title.append(inert(self.item.name, multiline=False), style="bold")
        yield Static(title, classes="entry-title")
        if self.item.reason:
            shown = self.item.mode and not self.item.reason.startswith(f"{self.item.mode} mode")  # said once
            mode = f"[{self.item.mode} mode] " if shown else ""
            yield Static(Text(f"why: {mode}{inert(self.item.reason)}"), classes="entry-why")
        if self.item.risk_level:
            risk = Text(f"risk: {self.item.risk_level} — {inert(self.item.risk_reason)}")
            if self.item.needs_override:
                risk.append(f"   (press {key_hint(self.screen, 'approval.override_critical')} to override; "
                            f"{key_hint(self.screen, 'approval.approve')} will not run it)")
            yield Static(risk, classes=f"entry-risk entry-risk-{self.item.risk_level}")
        if self.judge:
            yield JudgeLine(self.judge)
        yield Static(Text(self.item.preview), classes="entry-preview")
        if inert(self.item.preview) != self.item.preview:
            yield Static(Text(HIDDEN_WARNING, style="bold yellow"), classes="entry-hidden")
        if self.item.diff:
            yield DiffView(self.item.diff)

    def mark(self, decision: ApprovalDecision) -> None:
        label = {"approve": "approved", "always": "always allowed", "deny": "denied",
                 "override": "approved (critical override)"}[decision.decision]
        name = inert(self.item.name, multiline=False)
        self.query_one(".entry-title", Static).update(Text(f"{name}  → {label}", style="dim"))
        self.add_class("-decided")
        self.remove_class("-current")


class ApprovalScreen(ModalScreen[Decisions]):
    """Decides each pending call in turn; dismisses with {call_id: decision} once all are decided."""

    CSS_PATH = STYLES_DIR / "approval.tcss"

    BINDINGS = [
        Binding("y", "decide('approve')", "Approve", id="approval.approve"),
        Binding("Y", "approve_rest", "Approve all", id="approval.approve_all"),
        Binding("n", "decide('deny')", "Deny", id="approval.deny"),
        Binding("a", "always", "Always", id="approval.always"),
        Binding("exclamation_mark", "override", "Override critical", id="approval.override_critical"),
        Binding("f", "feedback", "Deny with feedback", id="approval.deny_with_feedback"),
        Binding("escape", "escape", "Deny all", priority=True, id="approval.deny_all"),
    ]

    def __init__(self, items: list[ApprovalItem], workstream_title: str = "",
                 places: dict[str, str] | None = None, judge: Judge | None = None) -> None:
        super().__init__()
        self.items = items
        self.judge = judge  # (alias, ask): ask(item) awaits the judge's Opinion
        self.places = places or {}  # scope -> the file an "Always" rule is written to
        self.workstream_title = workstream_title
        self.decisions: Decisions = {}
        self.index = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="approval-dialog"):
            yield Static(self._heading(), id="approval-heading")
            with VerticalScroll(id="approval-list"):
                for item in self.items:
                    yield ApprovalEntry(item, self.judge[0] if self.judge else None)
            yield Input(placeholder="Tell the model what to do instead, then Enter (Esc to go back)",
                        id="approval-feedback")
            yield Static(self._keys(), id="approval-keys")

    def _keys(self) -> str:
        """The keys that mean something here: a plan review has no rule to save and nothing to override."""
        calls = not all(item.review for item in self.items)
        return "   ".join(f"[b]{key_hint(self, binding)}[/] {words}" for binding, words, shown in (
            ("approval.approve", "approve", True), ("approval.approve_all", "approve all", True),
            ("approval.deny", "deny", True), ("approval.always", "always…", calls),
            ("approval.deny_with_feedback", "deny with feedback", True),
            ("approval.override_critical", "override critical", calls),
            ("approval.deny_all", "deny the rest", True)) if shown)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Always and override are hidden (and do nothing) on a plan review."""
        if action in ("always", "override") and self.index < len(self.items) and self._current().review:
            return False
        return True

    def on_mount(self) -> None:
        self._highlight()
        if self.judge is not None:
            for entry in self._entries():
                self.run_worker(self._second_opinion(entry), group="judge", exit_on_error=False)

    async def _second_opinion(self, entry: ApprovalEntry) -> None:
        """Advisory only: answering never waits for it; it is dropped if the modal closes first."""
        opinion = await self.judge[1](entry.item)
        if entry.is_attached:
            entry.query_one(JudgeLine).show(opinion)

    def _heading(self) -> Text:
        """A Text, not markup: the workstream's title may come from the model."""
        where = f" in “{inert(self.workstream_title, multiline=False)}”" if self.workstream_title else ""
        count = len(self.items)
        if all(item.review for item in self.items):
            return Text(f"Review the plan{where}")
        return Text(f"Approve tool call {min(self.index + 1, count)} of {count}{where}")

    def _entries(self) -> list[ApprovalEntry]:
        return list(self.query(ApprovalEntry))

    def _highlight(self) -> None:
        entries = self._entries()
        if self.index < len(entries):
            entries[self.index].add_class("-current")
            entries[self.index].scroll_visible(animate=False)
        self.query_one("#approval-heading", Static).update(self._heading())

    def _record(self, decision: ApprovalDecision, index: int | None = None) -> None:
        entries = self._entries()
        entry = entries[self.index if index is None else index]
        self.decisions[entry.item.call_id] = decision
        entry.mark(decision)
        entry.remove_class("-current")
        undecided = [i for i, e in enumerate(entries) if e.item.call_id not in self.decisions]
        if not undecided:
            self.dismiss(self.decisions)
        else:
            self.index = undecided[0]
            self._highlight()

    def _current(self) -> ApprovalItem:
        return self.items[self.index]

    def action_decide(self, decision: str) -> None:
        if decision == "approve" and self._current().needs_override:
            self.notify(f"This call has a critical risk: press {key_hint(self, 'approval.override_critical')} to "
                        f"run it anyway, or {key_hint(self, 'approval.deny')} to deny it.",
                        severity="warning")
            return
        self._record(ApprovalDecision(decision))  # type: ignore[arg-type]

    def action_override(self) -> None:
        if not self._current().needs_override:
            self.notify("Nothing to override: ! is only for critical-risk calls (y approves this one).")
            return
        self._record(ApprovalDecision("override"))

    def action_approve_rest(self) -> None:
        """Approve every call still open except critical ones, which wait to be decided one by one."""
        for index, item in enumerate(self.items):
            if item.call_id not in self.decisions and not item.needs_override and self.is_attached:
                self._record(ApprovalDecision("approve"), index)

    def action_always(self) -> None:
        item = self._current()
        if item.needs_override:
            self.notify("A critical-risk call cannot be always allowed.", severity="warning")
            return
        from app.tui.screens.rule_save import RuleSaveScreen

        def saved(result) -> None:
            if result is not None and item.call_id not in self.decisions:
                rules, scope = result
                self._record(ApprovalDecision("always", rules=rules, scope=scope))

        self.app.push_screen(RuleSaveScreen(item, self.places), callback=saved)

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
        for item in self.items:
            self.decisions.setdefault(item.call_id, ApprovalDecision("deny"))
        self.dismiss(self.decisions)
