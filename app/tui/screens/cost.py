"""/cost: usage and cost per workstream, and a sparkline of tokens per turn.

    totals = await store.usage_totals()
    per_turn = tokens_per_turn(await store.list_usage(ws_id))      # app.engine.usage
    app.push_screen(CostScreen(totals, per_turn, current=ws_id))   # dismisses with None
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Sparkline, Static

from widgets.key_hints import key_hint
from app.providers.pricing import format_cost
from app.storage.usage_store import UsageTotal
from styles import STYLES_DIR


def _tokens(n: int) -> str:
    return f"{n / 1_000_000:.2f}M" if n >= 1_000_000 else (f"{n / 1000:.1f}k" if n >= 1000 else str(n))


def _calls(total: UsageTotal) -> str:
    """Tool calls, and how many of them run_code programs made (code mode)."""
    return f"{total.tool_calls} ({total.code_calls} code)" if total.code_calls else str(total.tool_calls)


class CostScreen(ModalScreen[None]):
    CSS_PATH = STYLES_DIR / "providers.tcss"
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close", id="cost.close")]

    def __init__(self, totals: list[UsageTotal], per_turn: list[int], current: str | None = None) -> None:
        super().__init__()
        self.totals = totals
        self.per_turn = per_turn
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="provider-dialog"):
            yield Static("Usage and cost", classes="heading")
            yield DataTable(id="cost-table", cursor_type="row", zebra_stripes=True)
            estimated = any(t.cost_estimated for t in self.totals)
            known = [t.cost for t in self.totals if t.cost is not None]
            total = format_cost(sum(known), estimated) if known else "—"
            yield Static(f"Total {total}" + ("   (~ = estimated from built-in list prices)"
                                             if estimated else ""), id="cost-total", classes="status")
            turns = len(self.per_turn)
            peak = max(self.per_turn, default=0)
            yield Static(f"Tokens per turn, this workstream ({turns} turns, peak {_tokens(peak)})",
                         classes="hint")
            yield Sparkline(self.per_turn or [0], summary_function=max, id="cost-sparkline")
            yield Static(f"{key_hint(self, 'cost.close')} closes", classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("workstream", "reqs", "prompt", "output", "cache rd", "cache wr", "calls", "cost")
        for t in self.totals:
            name = (t.title or t.workstream_id[:8])[:24]
            if t.workstream_id == self.current:
                name = "● " + name
            table.add_row(Text(name), str(t.requests), _tokens(t.prompt_tokens), _tokens(t.completion_tokens),
                          _tokens(t.cache_read_tokens), _tokens(t.cache_write_tokens), _calls(t),
                          format_cost(t.cost, t.cost_estimated))
