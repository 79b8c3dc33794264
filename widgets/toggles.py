"""Radio buttons, checkboxes and switches whose state shows as a glyph as well as a colour, so a
screen reader, a colour-blind user or a plain text capture of the screen can tell on from off.

    RadioButton:  ▐●▌ chosen   ▐○▌ not      Checkbox:  ▐X▌ ticked   ▐ ▌ not
    Switch:       ━━● on       ●━━ off          SelectionList: each option ▐X▌ chosen, ▐ ▌ not
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widgets import Checkbox, RadioButton, SelectionList, Switch
from textual.widgets.option_list import OptionDoesNotExist


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


class MarkedSelectionList(SelectionList):
    """A selection list whose options' boxes hold X when chosen and nothing when not (Textual draws X
    in both, told apart by colour alone)."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if len(segments) < 3 or segments[1].text != Checkbox.BUTTON_INNER:
            return strip  # not an option's line (past the last one)
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        segments[1] = Segment("X" if option.value in self.selected else " ", segments[1].style)
        return Strip(segments, strip.cell_length)
