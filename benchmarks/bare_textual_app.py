"""The baseline for benchmarks/startup.py: a bare Textual app with Whimbrel's standard widgets.

It composes what Whimbrel's main screen is built from (a one-line Static bar, a
VerticalScroll, a TextArea, a one-line Static status line and a Footer) and shows the same
footer binding ("^q Quit"), so both programs paint the same kind of first frame and the
benchmark waits for the same marker. The input has the focus (its cursor blinks), as Whimbrel's
prompt has, so idle CPU compares like with like. Nothing else: no storage, no config, no engine.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static, TextArea


class BareApp(App):
    """Standard widgets only; Ctrl+Q quits and is shown in the footer like Whimbrel's."""

    CSS = """
    #bar, #status { height: 1; }
    VerticalScroll { height: 1fr; }
    TextArea { height: 3; }
    """
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]
    AUTO_FOCUS = "#prompt"

    def compose(self) -> ComposeResult:
        yield Static("whimbrel", id="bar")
        yield VerticalScroll()
        yield TextArea(id="prompt")
        yield Static("no model  |  idle  |  0 tokens", id="status")
        yield Footer()


if __name__ == "__main__":
    BareApp().run()
