"""First-run setup: pick a detected model (API key or local server) and write config.toml.

    app.push_screen(SetupScreen(config_path), callback)   # callback gets a Candidate or None

Keys are read from the environment at once; local servers are probed in a worker with a short
timeout, so the screen paints immediately and fills in as servers answer.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Awaitable, Callable, Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from widgets.key_hints import key_hint
from app.providers.discovery import Candidate, detect_keys, probe_local, write_model_choice
from styles import STYLES_DIR

Probe = Callable[[], Awaitable[list[Candidate]]]


class SetupScreen(ModalScreen["Candidate | None"]):
    """Lists candidates; Enter writes the highlighted one (model name editable) and dismisses."""

    CSS_PATH = STYLES_DIR / "providers.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Skip", id="setup.skip")]

    def __init__(self, config_path: Path, *, env: Mapping[str, str] = os.environ,
                 probe: Probe | None = None) -> None:
        super().__init__()
        self.config_path = Path(config_path)
        self.candidates: list[Candidate] = detect_keys(env)
        self._probe = probe or probe_local
        self.probing = True

    def compose(self) -> ComposeResult:
        with Vertical(classes="provider-dialog"):
            yield Static("Welcome to Whimbrel — choose a model", classes="heading")
            yield Static("API keys found in the environment and local servers that answered:",
                         classes="hint found")
            yield OptionList(id="setup-list", classes="found")
            yield Static("Model (edit to pick another one the server offers):", classes="hint found")
            yield Input(placeholder="model name", id="setup-model", classes="found")
            yield Static("", id="setup-status", classes="status")
            yield Static(f"Enter saves to {self.config_path}   {key_hint(self, 'setup.skip')} skips (use --model later)",
                         classes="hint found")

    def on_mount(self) -> None:
        self._refresh_list()
        self.query_one("#setup-model", Input).cursor_blink = False
        self.run_worker(self._probe_servers(), name="probe-local", group="setup", exit_on_error=False)

    async def _probe_servers(self) -> None:
        try:
            found = await self._probe()
        finally:
            self.probing = False
        self.candidates += found
        self._refresh_list()

    def _refresh_list(self) -> None:
        options = self.query_one("#setup-list", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        for candidate in self.candidates:
            label = Text()
            label.append(f"{candidate.label:<42}", style="bold")
            label.append(candidate.model or "(no models listed)", style="dim")
            if len(candidate.models) > 1:
                label.append(f"  +{len(candidate.models) - 1} more", style="dim")
            options.add_option(Option(label))
        if self.candidates:
            options.highlighted = min(highlighted or 0, len(self.candidates) - 1)
        status = "Probing local servers (Ollama 11434, llama.cpp 8080, vLLM 8000, LM Studio 1234)…" \
            if self.probing else ("" if self.candidates else
                                  "Nothing found: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, "
                                  "or start a local server, then reopen setup.")
        self.query_one("#setup-status", Static).update(status)
        for widget in self.query(".found"):  # nothing found: no empty list, only what to set or start
            widget.display = bool(self.candidates)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index is not None and event.option_index < len(self.candidates):
            self.query_one("#setup-model", Input).value = self.candidates[event.option_index].model

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.choose(event.option_index)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        highlighted = self.query_one("#setup-list", OptionList).highlighted
        if highlighted is not None:
            self.choose(highlighted)

    def choose(self, index: int) -> None:
        """Write the candidate at `index` (with the typed model name) and dismiss with it."""
        candidate = self.candidates[index]
        model = self.query_one("#setup-model", Input).value.strip() or candidate.model
        if not model:
            self.query_one("#setup-status", Static).update("Type a model name first.")
            return
        candidate.model = model
        try:
            write_model_choice(self.config_path, alias=candidate.alias, provider=candidate.provider,
                               model=model, base_url=candidate.base_url,
                               api_key_env=candidate.api_key_env)
        except (OSError, ValueError) as error:
            self.query_one("#setup-status", Static).update(Text(f"Could not write the config: {error}"))
            return
        self.dismiss(candidate)
