"""Radio buttons, checkboxes and switches whose state shows as a glyph as well as a colour, so a
screen reader, a colour-blind user or a plain text capture of the screen can tell on from off.

    RadioButton:  ▐●▌ chosen   ▐○▌ not      Checkbox:  ▐X▌ ticked   ▐ ▌ not
    Switch:       ━━● on       ●━━ off
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size
from textual.widgets import Checkbox, RadioButton, Switch


class MarkedRadioButton(RadioButton):
    """A radio button drawn ● when chosen and ○ when not."""

    @property  # type: ignore[override]  # Textual reads BUTTON_INNER at each render
    def BUTTON_INNER(self) -> str:  # noqa: N802 - Textual's name
        return "●" if self.value else "○"


class MarkedCheckbox(Checkbox):
    """A checkbox drawn X when ticked and empty when not (Textual draws X for both)."""

    @property  # type: ignore[override]
    def BUTTON_INNER(self) -> str:  # noqa: N802 - Textual's name
        return "X" if self.value else " "


class MarkedSwitch(Switch):
    """A switch whose knob sits right with "on" or left with "off", in words as well as in colour."""

    def render(self) -> Text:
        knob = self.get_component_rich_style("switch--slider")
        if self.value:
            return Text.assemble(("━━", "dim"), ("●", knob), " on ")
        return Text.assemble(("●", knob), ("━━", "dim"), " off")

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return 7

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1
