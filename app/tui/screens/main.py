"""The main screen: tab bar, the pane area with one view per open workstream, status bar, footer."""

from __future__ import annotations

import asyncio
from functools import partial

from rich.markup import escape
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import UPDATE_PERIOD
from textual.widget import Widget
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from app.tui.checkpoint_wiring import DoubleEscape
from app.tui import memory_commands
from app.engine.commands import CommandError, is_command
from app.tui.lifecycle.first_frame import show_first_frame
from app.tui.screens.frame_timer import FrameTimer
from app.storage.reachability import StoreUnavailable
from app.storage.write_refused import WriteRefused
from widgets.footer import KeysFooter
from widgets.mention_suggestions import MentionSuggestions
from widgets.pane_area import PaneArea
from widgets.prompt import PromptInput
from widgets.slash_suggestions import SlashSuggestions
from widgets.status_bar import StatusBar
from widgets.store_banner import StoreBanner
from widgets.tab_bar import NEXT_ATTENTION, TabBar, TabInfo
from widgets.textual_internals import (PaintTimerScreen, arrange_again, is_being_removed, placed_widgets,
                                       report_exception, require_layout, waits_for_paint)
from widgets.workstream_view import WorkstreamView

SETUP_MESSAGE = """\
[b]No model is configured yet.[/b]

Point Whimbrel at any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, Ollama, LM Studio):

  [b]whimbrel --base-url http://127.0.0.1:11434/v1 --model llama3.2[/b]

or set [b]OPENAI_API_KEY[/b] (and optionally [b]OPENAI_BASE_URL[/b]) and pass [b]--model NAME[/b],
or add a model to [b]{config}[/b]:

  \\[model]
  default = "local"

  \\[models.local]
  base_url = "http://127.0.0.1:8000/v1"
  model = "qwen2.5-coder"
"""

# Alt+1..9 arrive as ESC+digit, which Textual decodes as the macOS Option characters.
OPTION_DIGIT_KEYS = ("inverted_exclamation_mark", "trade_mark_sign", "pound_sign", "cent_sign", "infinity",
                     "section_sign", "pilcrow_sign", "bullet", "feminine_ordinal_indicator")


def _switch_bindings() -> list[Binding]:
    bindings = []
    for number in range(1, 10):
        keys = f"alt+{number},{OPTION_DIGIT_KEYS[number - 1]}"
        bindings.append(Binding(keys, f"app.switch_tab({number - 1})", f"Tab {number}", show=False,
                                priority=True, id=f"tab_{number}"))
    return bindings


class MainScreen(PaintTimerScreen):
    """Routes prompts to their workstream and keeps tabs, titles and the status bar current.

    Until the app has booted (storage open, tabs restored) a stand-in prompt takes the user's typing,
    so nothing typed in the first moments is lost.
    """

    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn", id="cancel_turn"),
        Binding("f1", "app.help", "Help", show=False, priority=True, id="help"),
        Binding("ctrl+o", "edit_prompt", "Editor", show=False, id="edit_prompt"),  # in /help and the palette
        Binding("f6", "copy_reply", "Copy reply", show=False, priority=True, id="copy_reply"),
        Binding("f7", "copy_code", "Copy code", show=False, priority=True, id="copy_code"),
        Binding("ctrl+n", "app.new_workstream", "New", priority=True, id="new_workstream"),
        NEXT_ATTENTION,  # ctrl+g: widgets/tab_bar.py names it in the waiting marker
        # Keys that move focus are priority bindings: they run before the next key is routed, so text
        # typed right after them lands in the newly focused prompt (see also apply_layout).
        Binding("f2", "app.focus_next_pane", "Next pane", priority=True, id="focus_next_pane"),
        Binding("f3", "app.split('horizontal')", "Split ┃", priority=True, id="split_side_by_side"),
        Binding("f4", "app.split('vertical')", "Split ━", priority=True, id="split_stacked"),
        Binding("f8", "app.close_pane", "Close pane", priority=True, id="close_pane"),
        Binding("f9", "mcp_inspector", "MCP", show=False, id="mcp_inspector"),  # footer full: /help, palette
        Binding("ctrl+pageup", "app.cycle_tab(-1)", "Prev tab", show=False, priority=True, id="previous_tab"),
        Binding("ctrl+pagedown", "app.cycle_tab(1)", "Next tab", show=False, priority=True, id="next_tab"),
        Binding("ctrl+q", "app.quit", "Quit", priority=True, id="quit"),
        Binding("shift+tab", "cycle_mode", "Mode", show=False, priority=True, id="cycle_mode"),  # app/tui/permissions/permission_wiring.py
        *_switch_bindings(),
    ]

    paint_timer: FrameTimer | None = None
    _echo_due: PromptInput | None = None  # a prompt whose typed key is not painted yet

    def new_paint_timer(self) -> FrameTimer:
        """Textual's paint timer, replaced by one that paints at the next frame (see FrameTimer)."""
        return FrameTimer(self._paint, UPDATE_PERIOD, on_error=partial(report_exception, self.app),
                          urgent=self._echo_ready)

    def echo_at_once(self, prompt: PromptInput) -> None:
        """A key was typed into `prompt`: paint it as soon as it is ready, not at the next frame."""
        self._echo_due = prompt

    def _echo_ready(self) -> bool:
        return self._echo_due is not None and waits_for_paint(self, self._echo_due)

    def _paint(self) -> None:
        """Textual's paint, after a layout if a widget being removed is still placed.

        A removed widget stays in the screen's map until the layout that its removal asks for once
        all of it is gone; painted in between, it renders without its styles (a crash). A paint that
        comes at once after a change can land there, so it lays out first, with the arrangements
        that still hold such a widget made again (a widget being removed is left out of them).
        """
        if self._echo_ready():
            self._echo_due = None
        for widget in [widget for widget in placed_widgets(self) if is_being_removed(widget)]:
            if isinstance(widget.parent, Widget):
                arrange_again(widget.parent)
            require_layout(self)
        self.paint_changes()

    def on_unmount(self) -> None:
        if self.paint_timer is not None:
            self.paint_timer.stop()

    def compose(self) -> ComposeResult:
        yield TabBar(id="tab-bar")
        with PaneArea(id="pane-area"):
            with Vertical(id="boot-view", classes="workstream-view"):
                yield Static(classes="boot-spacer")
                yield PromptInput(id="boot-prompt")
        yield StoreBanner(id="store-banner")  # hidden unless the team store's server stops answering
        yield StatusBar(id="status-bar")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.early_prompts: list[str] = []
        self.set_focus(self.query_one("#boot-prompt"))  # now: keys the terminal already delivered wait for it
        self.app.call_later(self.app.early_keys.release)  # app/tui/lifecycle/early_keys.py
        show_first_frame(self.app)  # the status bar from the config, the saved tabs' names, before boot

    async def hand_over_boot_prompt(self) -> list[str]:
        """Boot finished: move what was typed meanwhile into the focused view; returns prompts already sent."""
        boot = self.query_one("#boot-prompt", PromptInput)
        self.app.early_keys.hold()  # keys typed from now wait until the new prompt has focus (app/tui/lifecycle/early_keys.py)
        for node in [boot, *boot.ancestors]:  # keys already given to the boot prompt (an Enter bubbling up) land
            handled = asyncio.Event()
            node.call_later(handled.set)
            await handled.wait()
            if node is self:
                break
        sent, draft = list(self.early_prompts), boot.text
        view = self.view_for(self.app.focused_id)
        if view is not None:  # before any await: a key typed meanwhile must come after the draft
            view.prompt.insert(draft)
            self.set_focus(view.prompt)  # now, not a tick later: the next key must land there
        self.early_prompts.clear()
        self.app.call_later(self.app.early_keys.release)  # in the app's own loop, before any later key
        await self.query_one("#boot-view").remove()
        return sent


    @property
    def pane_area(self) -> PaneArea:
        return self.query_one(PaneArea)

    def view_for(self, workstream_id: str) -> WorkstreamView | None:
        return self.pane_area.view_for(workstream_id)

    async def show_setup(self, config_path: str) -> None:
        view = self.view_for(self.app.focused_id)
        if view is not None:
            message = SETUP_MESSAGE.format(config=escape(config_path))
            await view.transcript.add(Static(message, id="setup-message"))

    def refresh_chrome(self, workstreams: list, focused) -> None:
        if not self.query(TabBar) or not self.query(StatusBar):
            return  # the screen is being taken down (a turn cancelled as the app quits)
        active = workstreams.index(focused) if focused in workstreams else 0
        self.query_one(TabBar).show([TabInfo.of(w) for w in workstreams], active)
        for number, workstream in enumerate(workstreams, start=1):
            view = self.view_for(workstream.id)
            if view is not None:
                view.refresh_title(number)
        if focused is not None:
            view = self.view_for(focused.id)
            status = self.query_one(StatusBar)
            status.drawing = view.drawing if view is not None else 0
            status.show(focused)

    @on(WorkstreamView.DrawingChanged)
    def drawing_changed(self, message: WorkstreamView.DrawingChanged) -> None:
        """The focused view's screen caught up with an ended reply, or fell behind it: the status bar says."""
        if message.view.workstream.id == self.app.focused_id and self.query(StatusBar):
            status = self.query_one(StatusBar)
            status.drawing = message.view.drawing
            status.update(status.describe())

    def complete_command(self, text: str) -> str | None:
        view = self.view_for(self.app.focused_id)
        if view is None:
            return None
        return view.query_one(MentionSuggestions).completion(text) or view.query_one(SlashSuggestions).completion()

    # -- messages from views -------------------------------------------------------------
    @on(PromptInput.Submitted, "#boot-prompt")
    def submit_while_booting(self, message: PromptInput.Submitted) -> None:
        """Typed before storage was open: kept and sent as soon as the workstream exists."""
        message.stop()
        self.early_prompts.append(message.text)

    @on(PromptInput.Submitted)
    def submit(self, message: PromptInput.Submitted) -> None:
        view = next((a for a in message.prompt.ancestors if isinstance(a, WorkstreamView)), None)
        if view is None:
            return
        view.query_one(SlashSuggestions).update_for("")
        view.query_one(MentionSuggestions).update_for("")
        self.route(view, message.text)

    def route(self, view: WorkstreamView, text: str) -> None:
        """A slash command runs here; anything else is a prompt for the view's workstream."""
        if is_command(text):
            self.run_worker(self._command(view, text), group="command", exit_on_error=False)
        elif memory_commands.is_memory_note(text):
            if not self.app.store_link.refuse(view.workstream, text):  # type: ignore[attr-defined]
                memory_commands.save_note(self.app, view, text)
        else:
            self.app.turns.submit(view.workstream, text)  # type: ignore[attr-defined]

    async def _command(self, view: WorkstreamView, text: str) -> None:
        from app.tui.commands.slash_handlers import run_command

        try:
            await run_command(self.app, view, text)
        except CommandError as error:
            await view.transcript.add_notice(str(error), "warning")
        except WriteRefused as error:  # another window took the workstream over: its settings are that one's
            self.app.notify(error.not_saved, severity="warning", timeout=10)  # the pane is redrawn read-only
        except StoreUnavailable as error:  # the team store did not answer: the command goes back to the prompt
            view.prompt.give_back(text)
            self.app.notify(f"Not done: {error}. The command is back in the prompt box.", severity="warning",
                            timeout=10)

    @on(TextArea.Changed)
    def prompt_changed(self, message: TextArea.Changed) -> None:
        view = next((a for a in message.text_area.ancestors if isinstance(a, WorkstreamView)), None)
        if view is not None:
            view.query_one(SlashSuggestions).update_for(message.text_area.text)
            view.query_one(MentionSuggestions).update_for(message.text_area.text)

    @on(PromptInput.Echoed)
    def echo_painted(self) -> None:
        """Between two keys is when the panes may show a little of what streamed meanwhile."""
        for view in self.pane_area.views():
            if view.shown:
                view.post_message(WorkstreamView.CatchUp(after_echo=True))

    @on(WorkstreamView.Changed)
    def workstream_changed(self) -> None:
        self.app.workspace.refresh_chrome()  # type: ignore[attr-defined]

    @on(WorkstreamView.ApprovalNeeded)
    def approval_needed(self, message: WorkstreamView.ApprovalNeeded) -> None:
        self.app.workspace.approval_arrived(message.view)  # type: ignore[attr-defined]

    @on(TabBar.Selected)
    def tab_selected(self, message: TabBar.Selected) -> None:
        self.app.workspace.switch_to_index(message.index)  # type: ignore[attr-defined]

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        view = next((a for a in event.widget.ancestors_with_self if isinstance(a, WorkstreamView)), None)
        if view is not None:
            self.app.workspace.view_focused(view)  # type: ignore[attr-defined]

    def action_copy_reply(self) -> None:
        self.app.daily.copy_reply()  # type: ignore[attr-defined]  # app/tui/comforts/daily_actions.py

    def action_copy_code(self) -> None:
        self.app.daily.copy_code()  # type: ignore[attr-defined]

    def action_cycle_mode(self) -> None:
        self.app.permissions.cycle_mode()  # type: ignore[attr-defined]  # app/tui/permissions/permission_wiring.py

    def action_mcp_inspector(self) -> None:
        self.app.mcp.open_inspector()  # type: ignore[attr-defined]  # app/tui/mcp/mcp_wiring.py

    def action_edit_prompt(self) -> None:
        """Compose the focused prompt in $VISUAL / $EDITOR (app/tui/comforts/editor_compose.py)."""
        from app.tui.comforts.editor_compose import edit_prompt

        if not self.app.booted():  # type: ignore[attr-defined]  # says "Still starting up"
            return
        view = self.view_for(self.app.focused_id)
        if view is not None:
            self.run_worker(edit_prompt(self.app, view.prompt), group="editor", exit_on_error=False)

    def action_cancel_turn(self) -> None:
        self._double_escape = getattr(self, "_double_escape", None) or DoubleEscape()
        if self._double_escape.pressed(self.app, self.view_for(self.app.focused_id)):
            return  # Esc Esc on an empty prompt: the rewind screen (app/tui/checkpoint_wiring.py)
        self.app.turns.cancel(self.app.workstream)  # type: ignore[attr-defined]
