"""Ctrl+N with a choice to make: a new workstream on Whimbrel's own model or driven by an agent, and
(in a git repository) whether it works in its own git worktree, as `/worktree` and `--worktree` do.

    app.push_screen(NewWorkstreamScreen("fake-model", {"self": "whimbrel acp"}, worktree_possible=True), callback)
    # callback gets a NewWorkstreamChoice (agent "" is Whimbrel's own model), or None (cancelled)
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Checkbox, OptionList, Static
from textual.widgets.option_list import Option

from widgets.key_hints import key_hint
from widgets.toggles import MarkedCheckbox
from app.vocabulary.inert import inert
from styles import STYLES_DIR

OWN = "whimbrel"  # the option id of Whimbrel's own model (agent names are prefixed, so none collides)


@dataclass(frozen=True)
class NewWorkstreamChoice:
    """What the dialog decided: the agent ("" for Whimbrel's own model) and whether to use a worktree."""

    agent: str
    worktree: bool = False


def _label(title: str, detail: str) -> Text:
    text = Text()
    text.append(f"{inert(title, multiline=False):<18}", style="bold")
    text.append(inert(detail, multiline=False)[:70], style="dim")
    return text


class NewWorkstreamScreen(ModalScreen["NewWorkstreamChoice | None"]):
    """Enter opens the highlighted choice in a new tab (in its own worktree when the box is ticked);
    w opens it in its own worktree at once; Esc cancels."""

    CSS_PATH = STYLES_DIR / "providers.tcss"
    DEFAULT_CSS = "NewWorkstreamScreen { align: center middle; } #new-workstream-worktree { margin: 1 0 0 0; }"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="new_workstream.cancel"),
                Binding("w", "open_in_worktree", "Open in a worktree", show=True, id="new_workstream.worktree")]

    def __init__(self, model: str, agents: dict[str, str], *, worktree_possible: bool = False) -> None:
        super().__init__()
        self.model = model
        self.agents = agents  # name -> the command line that starts it
        self.worktree_possible = worktree_possible  # the workspace is a git repository with a commit

    def compose(self) -> ComposeResult:
        with Vertical(classes="provider-dialog"):
            yield Static("New workstream", classes="heading")
            yield OptionList(
                Option(_label("Whimbrel", f"own model: {self.model or 'none configured'}"), id=OWN),
                *(Option(_label(f"agent {name}", command), id=f"agent:{name}") for name, command in self.agents.items()),
                id="new-workstream-list")
            if self.worktree_possible:
                yield MarkedCheckbox("In its own git worktree: its changes stay apart until merged with /worktree",
                               id="new-workstream-worktree")
            hint = "Enter opens it in a new tab   "
            if self.worktree_possible:
                hint += f"{key_hint(self, 'new_workstream.worktree')} opens it in its own worktree   "
            hint += f"{key_hint(self, 'new_workstream.cancel')} cancels"
            if self.agents:
                hint += "   (agents come from [agents.*] in config.toml)"
            yield Static(hint, classes="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def action_open_in_worktree(self) -> None:
        """One press: the highlighted choice opens in a new tab, in its own worktree."""
        options = self.query_one(OptionList)
        highlighted = options.highlighted if options.highlighted is not None else 0
        self._open(options.get_option_at_index(highlighted).id or OWN, worktree=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.worktree_possible if action == "open_in_worktree" else True

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        ticked = self.worktree_possible and self.query_one("#new-workstream-worktree", Checkbox).value
        self._open(event.option.id or OWN, worktree=ticked)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """Ticked or not, the keyboard goes back to the list, where Enter opens the choice (on the
        box Enter would only tick it again)."""
        self.query_one(OptionList).focus()

    def _open(self, choice: str, *, worktree: bool) -> None:
        self.dismiss(NewWorkstreamChoice("" if choice == OWN else choice.removeprefix("agent:"), worktree))
