"""Completion list shown above the prompt while a slash command is being typed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from app.engine.commands import SlashCommand, completions


class SlashSuggestions(Static):
    """Lists matching commands with their one-line help; hidden when there is nothing to suggest."""

    def __init__(self) -> None:
        super().__init__(classes="slash-suggestions")
        self.matches: list[SlashCommand] = []
        self.display = False

    def update_for(self, text: str) -> None:
        """Show matches while the prompt is a single '/word' with no arguments yet."""
        typing_name = text.startswith("/") and " " not in text and "\n" not in text
        self.matches = completions(text[1:]) if typing_name else []
        self.display = bool(self.matches)
        if self.matches:
            body = Text()
            for index, command in enumerate(self.matches[:8]):
                if index:
                    body.append("\n")
                body.append(f"/{command.name}", style="bold")
                if command.usage:
                    body.append(f" {command.usage}", style="italic")
                body.append(f"  {command.summary}", style="dim")
            if len(self.matches) > 8:
                body.append(f"\n… {len(self.matches) - 8} more (Tab completes)", style="dim")
            self.update(body)

    def completion(self) -> str | None:
        """The text Tab should complete to: the single match, or the longest common prefix."""
        if not self.matches:
            return None
        names = [c.name for c in self.matches]
        if len(names) == 1:
            return f"/{names[0]} "
        prefix = names[0]
        for name in names[1:]:
            while not name.startswith(prefix):
                prefix = prefix[:-1]
        return f"/{prefix}"
