"""A collapsible card for one tool call: tool, argument preview, status, progress and (streamed) output."""

from __future__ import annotations

from rich.markup import escape
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Collapsible, ProgressBar, Static

from app.vocabulary.inert import inert
from widgets.code_program import CodeProgram, program_of
from widgets.subagent_log import SubagentLog

STATUS_ICONS = {
    "pending": "○", "approved": "✔", "denied": "✖", "running": "◐", "done": "●", "error": "✖", "not_run": "–",
}
STATUS_LABELS = {"not_run": "not run"}  # statuses whose name is not the word shown
MAX_SHOWN_LINES = 200


class ToolProgress(Horizontal):
    """A running call's progress, updated in place: a bar (with percent when the total is known), the
    count and the server's latest message. Hidden until the first report."""

    def __init__(self) -> None:
        self.bar = ProgressBar(show_eta=False, show_percentage=False, classes="tool-progress-bar")
        self.label = Static("", markup=False, classes="tool-progress-text")
        super().__init__(self.bar, self.label, classes="tool-progress")

    def report(self, progress: float, total: float | None, message: str | None) -> None:
        self.add_class("-active")
        self.bar.update(total=total if total else None, progress=progress)
        count = f"{self.percent(progress, total)}  {progress:g}/{total:g}" if total else f"{progress:g} so far"
        self.label.update(f"{count}  {message}" if message else count)

    @staticmethod
    def percent(progress: float, total: float | None) -> str:
        return f"{min(100.0, max(0.0, 100 * progress / total)):.0f}%" if total else ""


class ToolCard(Collapsible):
    """Title line `● bash  ls -la  done`; body holds the output (last lines while streaming)."""

    status: reactive[str] = reactive("pending")

    def __init__(self, call_id: str, name: str, preview: str, *, status: str = "pending",
                 output: str = "", collapsed: bool = False, arguments: str = "") -> None:
        self.call_id = call_id
        self.tool_name = inert(name, multiline=False)
        self.preview = " ".join(preview.split())
        self._output = output
        self._detail = ""
        self._percent = ""
        self._progress = ToolProgress()
        self._why = Static("", markup=False, classes="tool-why")  # what allowed or refused it
        self._why_text = ""
        self.subagents = SubagentLog()
        self.program = CodeProgram(program_of(arguments) if name.strip() == "run_code" else "")  # code mode
        self._body = Static(self._visible_output(), markup=False, classes="tool-output")
        super().__init__(self._why, self._progress, self.subagents, self.program, self._body, title=self._title_text(status), collapsed=collapsed,
                         classes="tool-card", id=None)
        self.set_reactive(ToolCard.status, status)
        self.add_class(f"-{status}")

    def _title_text(self, status: str) -> str:
        preview = self.preview if len(self.preview) <= 90 else self.preview[:89] + "…"
        detail = f" — {self._detail}" if self._detail else ""
        if status == "running" and self._percent:
            detail = f" {self._percent}{detail}"
        return escape(f"{STATUS_ICONS.get(status, '?')} {self.tool_name}  {preview}  [{STATUS_LABELS.get(status, status)}{detail}]")

    def _visible_output(self) -> str:
        lines = self._output.splitlines()
        if len(lines) > MAX_SHOWN_LINES:
            hidden = len(lines) - MAX_SHOWN_LINES
            lines = [f"… {hidden} earlier lines …", *lines[-MAX_SHOWN_LINES:]]
        return "\n".join(lines)

    def watch_status(self, old: str, new: str) -> None:
        self.remove_class(f"-{old}")
        self.add_class(f"-{new}")
        self.title = self._title_text(new)

    def set_status(self, status: str, detail: str = "") -> None:
        self._detail = detail
        self.status = status
        self.title = self._title_text(status)

    def set_permission(self, note: str) -> None:
        """Show what let the call run (a rule, the mode, the user) or why it was refused."""
        self._why_text = inert(note)
        self._why.update(self._why_text)
        self._why.add_class("-active")

    def set_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Show the latest progress report (replacing the previous one)."""
        self._progress.report(progress, total, message)
        self._percent = ToolProgress.percent(progress, total)
        self.title = self._title_text(self.status)

    def add_subagent_event(self, agent: str, event) -> None:
        """A sub-agent of this call did something (widgets/subagent_log.py shows it nested here)."""
        self.subagents.apply(agent, event)

    def add_code_event(self, event) -> None:
        """A tool call of this run_code program moved on (widgets/code_program.py shows it)."""
        self.program.apply(event)

    def append_output(self, text: str) -> None:
        self._output += text
        self._body.update(self._visible_output())

    def set_result(self, output: str, is_error: bool) -> None:
        """Show the final result text (what the model receives); the progress bar goes."""
        self._progress.remove_class("-active")
        self._percent = ""
        reason = self._why_text.removeprefix("refused: ").strip().rstrip(".")
        if is_error and self._why_text.startswith("refused: ") and reason and reason in inert(output):
            output = ""  # a refusal: its reason, which the model is told too, is on the line above already
        self._output = output
        self._body.update(self._visible_output())
