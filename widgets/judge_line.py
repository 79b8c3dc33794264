"""The judge's line in the approval modal: "asking…" until its advisory verdict arrives, then the
verdict and its reason (text from a model: made inert), or that it timed out or failed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from app.vocabulary.inert import inert

VERDICT_STYLES = {"safe": "bold green", "caution": "bold yellow", "dangerous": "bold red"}


class JudgeLine(Static):
    """One call's second opinion; `show` replaces the waiting text with the Opinion."""

    def __init__(self, judge: str) -> None:
        super().__init__(Text(f"judge ({inert(judge, multiline=False)}): asking for a second opinion…",
                              style="dim italic"), classes="entry-judge")
        self.judge = judge
        self.opinion = None

    def show(self, opinion) -> None:
        self.opinion = opinion
        text = Text(f"judge ({inert(opinion.judge, multiline=False)}): ")
        if opinion.answered:
            text.append(opinion.verdict.upper(), style=VERDICT_STYLES[opinion.verdict])
            if opinion.reason:
                text.append(f" — {inert(opinion.reason, multiline=False)}")
        elif opinion.verdict == "timeout":
            text.append(f"timed out ({inert(opinion.reason, multiline=False)})", style="yellow")
        elif opinion.verdict == "error":
            text.append(f"failed: {inert(opinion.reason, multiline=False)}", style="yellow")
        else:
            text.append(f"unclear answer: {inert(opinion.reason, multiline=False)}", style="dim")
        self.update(text)
