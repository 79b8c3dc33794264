"""The skill picker (/skill without a name): the skills found, their descriptions and versions."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from widgets.key_hints import key_hint


class SkillPicker(ModalScreen[str | None]):
    """Dismisses with the chosen skill's name (Enter), or None (Esc)."""

    DEFAULT_CSS = """
    SkillPicker { align: center middle; }
    #skill-dialog { width: 90; height: auto; max-height: 80%; border: round $accent; background: $surface;
                    padding: 0 1; }
    #skill-list { height: auto; max-height: 20; }
    #skill-problems { color: $warning; height: auto; }
    .skill-keys { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="skill_picker.close")]

    def __init__(self, skills: dict, problems: list[str], workspace: str = "") -> None:
        """`workspace`: shown paths are relative to it."""
        super().__init__()
        self.skills = skills
        self.problems = [p.replace(workspace.rstrip("/") + "/", "") for p in problems] if workspace else problems

    def compose(self) -> ComposeResult:
        with Vertical(id="skill-dialog"):
            yield Static("[b]Start a workstream from a skill[/b]", id="skill-heading")
            options = []
            for skill in self.skills.values():
                label = Text(skill.name, style="bold")
                label.append(f"  v{skill.version}", style="dim")
                if skill.variables:
                    label.append("  {" + ", ".join(skill.variables) + "}", style="cyan")
                label.append(f"\n  {skill.description or '(no description)'}")
                options.append(Option(label, id=skill.name))
            if not options:
                yield Static("No skills yet: add .toml or .md files to .whimbrel/skills/ in the workspace "
                             "or skills/ in the config dir.", markup=False)
            else:
                yield OptionList(*options, id="skill-list")
            yield Static("\n".join(f"could not load: {p}" for p in self.problems), id="skill-problems",
                         markup=False)
            yield Static(f"[b]Enter[/b] start · [b]{key_hint(self, 'skill_picker.close')}[/b] close · "
                         "variables: /skill NAME var=value …",
                         classes="skill-keys")

    def on_mount(self) -> None:
        for options in self.query(OptionList):
            options.focus()

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
