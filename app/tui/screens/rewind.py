"""The rewind screen: the workstream's user messages with what each turn changed; for the one chosen,
the diff that would be undone, files changed by hand, files not captured; then rewind files and
conversation, files only, or conversation only (or undo the last rewind)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from app.checkpoints.rewind import RewindError, RewindPlan, TurnSummary
from widgets.key_hints import key_hint
from styles import STYLES_DIR
from widgets.diff_view import DiffView, render_diff

STATUS_WORDS = {"A": "created", "D": "deleted", "M": "edited", "T": "type changed"}
MODE_WORDS = {"both": "files and conversation", "files": "files only", "conversation": "conversation only"}


def turn_label(number: int, summary: TurnSummary) -> Text:
    """'3. change four files      6 files  +5 −4' (or 'no file changes')."""
    first = " ".join(summary.turn.text.split())
    text = Text(f"{number}. ", style="bold")
    text.append(first[:60] + ("…" if len(first) > 60 else ""))
    files = len({c[0] for c in summary.changes})
    text.append("   ")
    if files:
        text.append(f"{files} file{'s' if files != 1 else ''}  ", style="bold")
        text.append(f"+{summary.added}", style="green")
        text.append(" ")
        text.append(f"−{summary.removed}", style="red")
    else:
        text.append("no file changes", style="dim")
    if summary.outside:
        text.append("  ⚠ outside the workspace", style="yellow")
    return text


def plan_text(plan: RewindPlan) -> Text:
    """What the rewind would do, in words: files, hand edits, files not captured, the conversation."""
    text = Text()
    if plan.target_tree is None:
        text.append("No turn from this message on changed any file: a files rewind has nothing to do.\n")
    elif not plan.changes:
        text.append("The files are already as they were before this message.\n")
    else:
        text.append(f"Rewinding the files changes {len(plan.changes)} file(s):\n", style="bold")
        for change in plan.changes:
            verb = {"A": "restored", "D": "removed", "M": "restored", "T": "restored"}[change.status]
            text.append(f"  {verb:<9} {change.path}\n")
    if plan.hand_changed:
        text.append("Changed since Whimbrel last left the workspace (by hand?), and overwritten by a files "
                    "rewind:\n", style="bold yellow")
        for path in plan.hand_changed:
            text.append(f"  ⚠ {path}\n", style="yellow")
    if plan.others:
        text.append("Changed since by another workstream on this workspace, so left as it left them:\n",
                    style="bold yellow")
        for path, who in sorted(plan.others.items()):
            text.append(f"  ⚠ {path}  ({who})\n", style="yellow")
    if plan.skipped:
        text.append("Not captured (so not restored):\n", style="bold")
        for line in plan.skipped:
            text.append(f"  {line}\n", style="dim")
    if plan.outside:
        text.append("Touched outside the workspace (never captured, not restored):\n", style="bold yellow")
        for path in plan.outside:
            text.append(f"  {path}\n", style="yellow")
    text.append(f"The conversation loses this message and the {plan.messages_after - 1} after it.\n"
                if plan.messages_after > 1 else "The conversation loses this message.\n")
    text.rstrip()
    return text


@dataclass(frozen=True)
class ForkHere:
    """The user asked to fork after this message (k): the number of user messages to keep."""

    keep: int


class RewindScreen(ModalScreen["str | ForkHere | None"]):
    """Dismisses with a sentence saying what was done (for the transcript), a ForkHere, or None (Esc)."""

    CSS_PATH = STYLES_DIR / "checkpoints.tcss"

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close", id="rewind.close"),
        Binding("enter,b", "rewind('both')", "Files + conversation", id="rewind.files_and_conversation"),
        Binding("f", "rewind('files')", "Files only", id="rewind.files_only"),
        Binding("c", "rewind('conversation')", "Conversation only", id="rewind.conversation_only"),
        Binding("u", "undo", "Undo last rewind", id="rewind.undo_last_rewind"),
        Binding("k", "fork", "Fork here", id="rewind.fork_here"),
    ]

    def __init__(self, rewinder, title: str) -> None:
        super().__init__()
        self.rewinder = rewinder
        self.workstream_title = title
        self.summaries: list[TurnSummary] = []
        self.plan: RewindPlan | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-dialog"):
            yield Static(Text.assemble(("Rewind ", "bold"), (f"“{self.workstream_title}”", "bold"),
                                       "  to before a message · "
                                       f"{key_hint(self, 'rewind.files_and_conversation', every=True)} files + "
                                       f"conversation · {key_hint(self, 'rewind.files_only')} files only · "
                                       f"{key_hint(self, 'rewind.conversation_only')} conversation only · "
                                       f"{key_hint(self, 'rewind.undo_last_rewind')} undo the last rewind · "
                                       f"{key_hint(self, 'rewind.fork_here')} fork here · "
                                       f"{key_hint(self, 'rewind.close')} closes"),
                         id="rewind-heading")
            with Horizontal(id="rewind-body"):
                yield OptionList(id="rewind-turns")
                with VerticalScroll(id="rewind-detail"):
                    yield Static("", id="rewind-plan")
                    yield Static("", id="rewind-diff-title")
                    yield DiffView("", id="rewind-diff")
            yield Static("Reading the checkpoints…", id="rewind-status")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.load()

    @work(exclusive=True, group="rewind-load")
    async def load(self) -> None:
        self.summaries = await self.rewinder.turns()
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(turn_label(n, s), id=str(s.turn.seq))
                             for n, s in enumerate(self.summaries, start=1)])
        if not self.summaries:
            self._status("No messages to rewind to yet.")
            return
        options.highlighted = len(self.summaries) - 1
        self._status(f"{len(self.summaries)} message(s)")

    @on(OptionList.OptionHighlighted)
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.plan = None
        self.show_plan(int(event.option.id))

    @on(OptionList.OptionSelected)
    def selected(self) -> None:
        self.action_rewind("both")

    @work(exclusive=True, group="rewind-plan")
    async def show_plan(self, seq: int) -> None:
        try:
            plan = await self.rewinder.plan(seq)
        except (RewindError, OSError, RuntimeError) as error:
            self._status(str(error))
            return
        self.plan = plan
        self.query_one("#rewind-plan", Static).update(plan_text(plan))
        title = "The changes a files rewind undoes:" if plan.undone_patch else ""
        self.query_one("#rewind-diff-title", Static).update(Text(title, style="bold"))
        self.query_one("#rewind-diff", DiffView).update(render_diff(plan.undone_patch))

    def _status(self, line: str) -> None:
        self.query_one("#rewind-status", Static).update(Text(line))

    def action_rewind(self, mode: str) -> None:
        if self.plan is None or self.busy:
            return
        self.busy = True
        self.apply(self.plan, mode)

    @work(exclusive=True, group="rewind-apply")
    async def apply(self, plan: RewindPlan, mode: str) -> None:
        try:
            outcome = await self.rewinder.apply(plan, mode)
        except (RewindError, OSError, RuntimeError) as error:
            self.busy = False
            self._status(f"The rewind failed: {error}")
            return
        files = (f" {len(outcome.restored.written)} file(s) restored, {len(outcome.restored.removed)} removed."
                 if mode != "conversation" else "")
        left = (f" Left alone (not captured): {', '.join(outcome.restored.left_alone)}."
                if outcome.restored.left_alone else "")
        talk = f" {outcome.messages} message(s) removed." if mode != "files" else ""
        self.dismiss(f"Rewound to before “{' '.join(plan.turn.text.split())[:60]}” ({MODE_WORDS[mode]}).{files}"
                     f"{talk}{left} /rewind undo (or u in /rewind) takes it back.")

    def action_fork(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None and not self.busy:
            self.dismiss(ForkHere(options.highlighted + 1))

    def action_undo(self) -> None:
        if not self.busy:
            self.busy = True
            self.undo()

    @work(exclusive=True, group="rewind-apply")
    async def undo(self) -> None:
        try:
            outcome = await self.rewinder.undo()
        except (RewindError, OSError, RuntimeError) as error:
            self.busy = False
            self._status(str(error))
            return
        self.dismiss(undo_sentence(outcome))


def undo_sentence(outcome) -> str:
    """What an undo did, for the transcript."""
    parts = []
    if outcome.mode != "conversation":
        parts.append(f"{len(outcome.restored.written)} file(s) put back, {len(outcome.restored.removed)} removed")
    if outcome.mode != "files":
        parts.append(f"{outcome.messages} message(s) put back")
    return "Rewind undone: " + "; ".join(parts) + "." + (f" {outcome.note}" if outcome.note else "")
