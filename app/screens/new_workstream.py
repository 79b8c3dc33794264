"""Ctrl+N when external agents are configured: a new workstream on Whimbrel's own model, or driven by an agent.

    app.push_screen(NewWorkstreamScreen("fake-model", {"self": "whimbrel acp"}), callback)
    # callback gets "" for Whimbrel's own model, an agent name, or None (cancelled)
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from app.keymap import key_hint
from app.vocabulary.inert import inert
from styles import STYLES_DIR

OWN = "whimbrel"  # the option id of Whimbrel's own model (agent names are prefixed, so none collides)


def _label(title: str, detail: str) -> Text:
    text = Text()
    text.append(f"{inert(title, multiline=False):<18}", style="bold")
    text.append(inert(detail, multiline=False)[:70], style="dim")
    return text


class NewWorkstreamScreen(ModalScreen["str | None"]):
    """Enter opens the highlighted choice in a new tab; Esc cancels."""

    CSS_PATH = STYLES_DIR / "providers.tcss"
    DEFAULT_CSS = "NewWorkstreamScreen { align: center middle; }"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="new_workstream.cancel")]

    def __init__(self, model: str, agents: dict[str, str]) -> None:
        super().__init__()
        self.model = model
        self.agents = agents  # name -> the command line that starts it

    def compose(self) -> ComposeResult:
        with Vertical(classes="provider-dialog"):
            yield Static("New workstream", classes="heading")
            yield OptionList(
                Option(_label("Whimbrel", f"own model: {self.model or 'none configured'}"), id=OWN),
                *(Option(_label(f"agent {name}", command), id=f"agent:{name}") for name, command in self.agents.items()),
                id="new-workstream-list")
            yield Static(f"Enter opens it in a new tab   {key_hint(self, 'new_workstream.cancel')} cancels   "
                             "(agents come from [agents.*] in config.toml)",
                         classes="hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        choice = event.option.id or OWN
        self.dismiss("" if choice == OWN else choice.removeprefix("agent:"))
