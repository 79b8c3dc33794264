"""The model picker: every configured alias with its model, provider, context and breaker.

    app.push_screen(ModelPickerScreen(registry.describe(), current="local"), callback)
    # callback gets the chosen alias (then call `await session.set_model(alias)`) or None
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from widgets.key_hints import key_hint
from app.providers.models import ModelInfo
from styles import STYLES_DIR

BREAKER_STYLE = {"closed": "green", "half-open": "yellow", "open": "red"}


def _k(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 and n % 1_000_000 == 0 else (
        f"{n / 1_000_000:.1f}M" if n >= 1_000_000 else f"{n // 1000}k")


def model_label(info: ModelInfo, current: str | None) -> Text:
    text = Text()
    text.append("● " if info.alias == current else "  ", style="bold green")
    text.append(f"{info.alias:<14}", style="bold")
    text.append(f"{info.model:<28}")
    text.append(f"{info.provider:<10}", style="dim")
    text.append(f"{_k(info.context_window):>6} ctx  ", style="dim")
    text.append(f"{info.breaker:<10}", style=BREAKER_STYLE.get(info.breaker, ""))
    if info.is_default:
        text.append("  default", style="italic dim")
    return text


class ModelPickerScreen(ModalScreen["str | None"]):
    """Enter picks the highlighted alias; Esc cancels."""

    CSS_PATH = STYLES_DIR / "providers.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="model_picker.cancel")]

    def __init__(self, models: list[ModelInfo], current: str | None = None) -> None:
        super().__init__()
        self.models = models
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="provider-dialog"):
            yield Static("Switch model for this workstream", classes="heading")
            options = OptionList(*(Option(model_label(m, self.current), id=m.alias) for m in self.models),
                                 id="model-list")
            yield options
            yield Static(f"Enter switches   {key_hint(self, 'model_picker.cancel')} cancels   "
                             "(models come from [models.*] in config.toml)",
                         classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        aliases = [m.alias for m in self.models]
        if self.current in aliases:
            options.highlighted = aliases.index(self.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
