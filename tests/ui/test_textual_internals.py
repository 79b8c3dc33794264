"""Each piece of Textual's private API that widgets/textual_internals.py uses, pinned against the
installed Textual: it is there, has the expected kind and signature, and does what Whimbrel relies
on. After a Textual upgrade, a failure here names what changed and which feature depends on it."""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import io
import threading
import time

import pytest
import rich.control
import rich.style
import textual
import textual.content
from textual import events
from textual._compositor import Compositor
from textual._spatial_map import SpatialMap
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.driver import Driver
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Footer, Label, TextArea

from tests.ui.helpers import wait_for
from widgets.textual_internals import (PRIVATE_NAMES, BindingsFooter, KeyFirstTextArea, OverlapCompositor,
                                       PaintTimerScreen,
                                       ScreensPaintAfterBatch, anchor_released, arrange_again,
                                       component_styles_on_first_use, forget_rendered_lines, is_being_removed,
                                       placed_widgets, rendered_lines, report_exception, require_layout,
                                       updates_held, waits_for_paint, write_to_terminal)

OWNERS: dict[str, object] = {cls.__name__: cls for cls in (App, Screen, Widget, DOMNode, MessagePump, Footer,
                                                           TextArea, Compositor, SpatialMap)}
# module-level tables: named after the class whose constructor reads them
OWNERS.update({"Text": rich.control, "Content": textual.content})
OWNERS["linux_driver"] = importlib.import_module("textual.drivers.linux_driver")  # a module-level name
OWNERS["web_driver"] = importlib.import_module("textual.drivers.web_driver")
OWNERS["_writer_thread"] = importlib.import_module("textual.drivers._writer_thread")
OWNERS["_wrapped_document"] = importlib.import_module("textual.document._wrapped_document")
OWNERS["WriterThread"] = functools.partial(OWNERS["_writer_thread"].WriterThread, io.StringIO())


def changed(name: str, what: str) -> str:
    """The failure message: what changed in which Textual, and what of ours depends on it."""
    return (f"Textual {textual.__version__}: {name} {what}. {PRIVATE_NAMES[name]} depends on it; "
            "adapt widgets/textual_internals.py")


@pytest.mark.parametrize("name", sorted(PRIVATE_NAMES))
def test_each_private_name_is_there(name: str) -> None:
    owner_name, attribute = name.split(".")
    owner = OWNERS[owner_name]
    assert hasattr(owner, attribute) or hasattr(owner(), attribute), changed(name, "is gone")


def test_the_private_methods_keep_their_kind_and_signature() -> None:
    def parameters(function) -> list[str]:
        return list(inspect.signature(function).parameters)

    assert isinstance(inspect.getattr_static(Screen, "_update_timer"), property), \
        changed("Screen._update_timer", "is no longer a property")
    assert parameters(Screen._on_timer_update) == ["self"], changed("Screen._on_timer_update", "takes arguments")
    assert parameters(App._handle_exception) == ["self", "error"], \
        changed("App._handle_exception", "no longer takes (error)")
    assert parameters(Widget._clear_arrangement_cache) == ["self"], \
        changed("Widget._clear_arrangement_cache", "takes arguments")
    assert isinstance(inspect.getattr_static(DOMNode, "_get_component_classes"), classmethod), \
        changed("DOMNode._get_component_classes", "is no longer a classmethod")
    assert parameters(MessagePump._attach) == ["self", "parent"], changed("MessagePump._attach", "is not (parent)")
    assert parameters(Footer.bindings_changed) == ["self", "screen"], \
        changed("Footer.bindings_changed", "is not (screen)")
    assert inspect.iscoroutinefunction(TextArea._on_key), changed("TextArea._on_key", "is not a coroutine")
    assert parameters(TextArea._on_key) == ["self", "event"], changed("TextArea._on_key", "is not (event)")
    assert parameters(Compositor._get_renders) == ["self", "crop"], changed("Compositor._get_renders", "is not (crop)")
    assert parameters(Compositor._arrange_root.textual_arrange_root) == ["self", "root", "size", "visible_only"], \
        changed("Compositor._arrange_root", "is not (root, size, visible_only)")
    wrap = OWNERS["_wrapped_document"].compute_wrap_offsets.textual_compute
    assert parameters(wrap) == ["text", "width", "tab_size", "fold", "precomputed_tab_sections"], \
        changed("_wrapped_document.compute_wrap_offsets", "is not (text, width, tab_size, fold, precomputed_tab_sections)")


# -- the screen's paint ------------------------------------------------------------------------
async def unpainted_until(predicate, message: str, timeout: float = 15.0) -> None:
    """Wait for `predicate()` without a Pilot pause (each of which paints the screen)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"timed out waiting for: {message}"
        await asyncio.sleep(0.01)


class ManualTimer:
    """A paint timer that records what the screen asks of it and paints only when told to."""

    def __init__(self) -> None:
        self.resumed = self.paused = 0

    def resume(self) -> None:
        self.resumed += 1

    def pause(self) -> None:
        self.paused += 1


class ManualScreen(PaintTimerScreen):
    def new_paint_timer(self) -> ManualTimer:
        return ManualTimer()

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Label("before", id="label")


class Painted(App):
    def get_default_screen(self) -> Screen:
        return ManualScreen()


async def test_the_screen_paints_through_the_timer_read_from_update_timer() -> None:
    app = Painted()
    async with app.run_test(size=(40, 5)):
        screen, label = app.screen, app.query_one("#label", Label)
        timer = screen.paint_timer
        assert isinstance(timer, ManualTimer), changed("Screen._update_timer", "is not what the screen paints from")
        resumed = timer.resumed
        label.update("after")
        await unpainted_until(lambda: waits_for_paint(screen, label) and timer.resumed > resumed,
                              changed("Screen._dirty_widgets", "does not hold a changed widget, or the "
                                      "timer is not resumed for it"))
        paused = timer.paused
        screen.paint_changes()
        assert timer.paused > paused, changed("Screen._on_timer_update", "does not pause the paint timer")
        assert not waits_for_paint(screen, label), \
            changed("Screen._on_timer_update", "does not paint the widgets in Screen._dirty_widgets")


class CountedLines(Widget):
    """A block of text that counts the lines it is asked to render: the work a paint does."""

    DEFAULT_CSS = "CountedLines { height: 6; background: $panel; }"
    lines_rendered = 0

    def render(self) -> str:
        return "a block\nof several\nlines"

    def render_lines(self, crop):
        self.lines_rendered += crop.height
        return super().render_lines(crop)


class Blocks(ManualScreen):
    def compose(self) -> ComposeResult:
        yield CountedLines(id="above")
        with Vertical(id="box"):
            yield Label("before", id="label")
        yield CountedLines(id="below")


class PaintedBlocks(App):
    def get_default_screen(self) -> Screen:
        return Blocks()


def partial_paint(compositor: Compositor, console, widget: Widget) -> list:
    """What a partial update of all of `widget` writes to the terminal, as segments."""
    widget.refresh()
    compositor.update_widgets({widget})
    update = compositor.render_partial_update()
    return [(segment.text, segment.style, segment.control) for segment in console.render(update, console.options)]


async def test_a_partial_paint_renders_only_the_lines_it_paints_and_paints_them_as_textual_does() -> None:
    app = PaintedBlocks()
    async with app.run_test(size=(40, 20)):
        screen, label, above = app.screen, app.query_one("#label", Label), app.query_one("#above", CountedLines)
        assert isinstance(screen._compositor, OverlapCompositor), changed("Screen._compositor", "is not ours")
        textuals = Compositor()
        textuals.reflow(screen, screen.size)
        textuals.render_update(full=True)  # as painted so far: nothing left to update
        label.update("after!")  # as wide as "before": no new layout needed
        await unpainted_until(lambda: waits_for_paint(screen, label), "the label waiting for its paint")
        rendered = above.lines_rendered
        ours = partial_paint(screen._compositor, app.console, label)
        assert above.lines_rendered == rendered, "a block outside the changed line was rendered for its paint"
        assert partial_paint(textuals, app.console, label) == ours, \
            changed("Compositor._get_renders", "renders a partial update otherwise")
        assert "after!" in "".join(text for text, _style, _control in ours)


async def test_a_widget_being_removed_is_left_out_of_the_layout_its_paint_is_asked_to_make() -> None:
    app = Painted()
    async with app.run_test(size=(40, 5)) as pilot:
        await wait_for(pilot, lambda: not updates_held(app), message="no batch update in progress")
        screen, label = app.screen, app.query_one("#label", Label)
        assert label in placed_widgets(screen), changed("Screen._compositor", "does not list the placed widgets")
        assert not is_being_removed(label)
        removed = label.remove()
        assert is_being_removed(label), changed("DOMNode._pruning", "is not set by remove()")
        assert label in placed_widgets(screen)  # until a layout: the state the main screen guards against
        arrange_again(label.parent)
        require_layout(screen)
        screen.paint_changes()
        assert label not in placed_widgets(screen), changed(
            "Screen._layout_required", "does not make the paint lay out (or Widget._clear_arrangement_cache "
            "does not make the parent arrange its children afresh)")
        await removed


async def test_nothing_is_painted_while_updates_are_held() -> None:
    app = Painted()
    async with app.run_test(size=(40, 5)) as pilot:
        await wait_for(pilot, lambda: not updates_held(app), message="no batch update in progress")
        screen, label = app.screen, app.query_one("#label", Label)
        with app.batch_update():
            assert updates_held(app), changed("App._batch_count", "does not count batch_update()")
            removed = label.remove()
            require_layout(screen)
            screen.paint_changes()
            assert label in placed_widgets(screen), changed("App._batch_count", "no longer holds the paint")
        assert not updates_held(app), changed("App._batch_count", "is not back to 0 after batch_update()")
        await removed


async def test_report_exception_makes_the_app_exit_with_the_error() -> None:
    app = Painted()
    with pytest.raises(ValueError, match="from a paint"):
        async with app.run_test(size=(40, 5)) as pilot:
            report_exception(app, ValueError("from a paint"))
            await wait_for(pilot, lambda: app.return_code is not None, message="the app exits")
    assert app.return_code == 1, changed("App._handle_exception", "does not make the app exit with code 1")


# -- component styles --------------------------------------------------------------------------
class Part(Widget):
    COMPONENT_CLASSES = {"part--accent"}
    DEFAULT_CSS = "Part { height: 1; } Part > .part--accent { color: #ff0000; }"


LazyPart = type("Part", (Part,), {**component_styles_on_first_use(Part), "__module__": __name__})


class Parts(App):
    def compose(self) -> ComposeResult:
        yield Part(id="eager")
        yield LazyPart(id="lazy")


async def test_component_styles_are_worked_out_on_first_use_as_the_stylesheet_would() -> None:
    assert Part._get_component_classes() == frozenset({"part--accent"}), \
        changed("DOMNode._get_component_classes", "no longer returns COMPONENT_CLASSES")
    app = Parts()
    async with app.run_test(size=(40, 4)) as pilot:
        await pilot.pause()
        eager, lazy = app.query_one("#eager"), app.query_one("#lazy")
        assert set(eager._component_styles) == {"part--accent"}, \
            changed("DOMNode._component_styles", "is not filled by the stylesheet for COMPONENT_CLASSES")
        assert lazy._component_styles == {}, \
            changed("DOMNode._get_component_classes", "is no longer what the stylesheet reads on mount")
        expected = eager.get_component_styles("part--accent").color
        assert lazy.get_component_styles("part--accent").color == expected, \
            changed("MessagePump._attach", "does not let a virtual node take its parent's styles")
        app.theme = "textual-light"
        await pilot.pause()
        assert lazy._component_styles == {}, \
            changed("DOMNode._component_styles", "is not what notify_style_update should clear")
        assert lazy.get_component_styles("part--accent").color == expected


# -- the footer, the prompt, the transcript, the terminal -----------------------------------------
class WatchingFooter(BindingsFooter):
    def on_mount(self) -> None:
        self.changes: list[Screen] = []

    def active_bindings_changed(self, screen: Screen) -> None:
        self.changes.append(screen)
        self.call_after_refresh(self.recompose)


class Keyed(Button):
    BINDINGS = [Binding("f5", "noop", "Only on keyed")]


class WithFooter(App):
    def compose(self) -> ComposeResult:
        yield Button("plain", id="plain")
        yield Keyed("keyed", id="keyed")
        yield WatchingFooter()


async def test_the_footer_hears_of_each_binding_change_through_bindings_changed() -> None:
    app = WithFooter()
    async with app.run_test(size=(60, 6)) as pilot:
        footer = app.query_one(WatchingFooter)
        app.query_one("#keyed").focus()
        await wait_for(pilot, lambda: app.screen in footer.changes,
                       message=changed("Footer.bindings_changed", "is not called when the bindings change"))
        await wait_for(pilot, lambda: any(key.description == "Only on keyed" for key in footer.children),
                       message=changed("Footer._bindings_ready", "no longer lets Footer.compose show the keys"))


class TakesX(KeyFirstTextArea):
    def take_key(self, event: events.Key) -> bool:
        return event.key == "x"


class Typing(App):
    def compose(self) -> ComposeResult:
        yield TakesX()


async def test_a_key_taken_before_the_text_area_is_not_typed() -> None:
    app = Typing()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.press("x", "y", "x", "z")
        assert app.query_one(TakesX).text == "yz", \
            changed("TextArea._on_key", "is not where the TextArea types a key")


class Following(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            for n in range(20):
                yield Label(f"line {n}")


async def test_anchor_released_follows_release_anchor() -> None:
    app = Following()
    async with app.run_test(size=(40, 5)):
        scroll = app.query_one("#scroll", VerticalScroll)
        scroll.anchor()
        assert not anchor_released(scroll), changed("Widget._anchor_released", "is set by anchor()")
        scroll.release_anchor()
        assert anchor_released(scroll), changed("Widget._anchor_released", "is not set by release_anchor()")


class Lines(App):
    def compose(self) -> ComposeResult:
        yield Label("\n".join(f"line {n}" for n in range(8)), id="lines")


async def test_forget_rendered_lines_empties_the_styles_cache_a_paint_fills() -> None:
    app = Lines()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        label = app.query_one("#lines")
        assert rendered_lines(label) == 8, changed("Widget._styles_cache", "no longer keeps a painted widget's lines")
        forget_rendered_lines(label)
        assert rendered_lines(label) == 0, changed("Widget._styles_cache", "keeps its lines after clear()")


async def test_the_driver_is_there_while_the_app_runs() -> None:
    app = Typing()
    assert app._driver is None, changed("App._driver", "is set before the app runs")
    async with app.run_test(size=(40, 5)):
        driver = app._driver
        assert isinstance(driver, Driver), changed("App._driver", "is not the app's Driver while it runs")
        assert callable(driver.write) and callable(driver.flush), changed("App._driver", "lost write/flush")
        assert write_to_terminal(app, "\x1b]9;hello\x07") is False  # a headless app has no terminal


# -- no accidental use ---------------------------------------------------------------------------
@functools.cache
def underscore_names_defined_in(cls: type) -> frozenset[str]:
    """The single-underscore names a class body defines: methods, class attributes, `self._x = …`."""
    import ast
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    names: set[str] = set()
    for node in ast.walk(tree.body[0]):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
    return frozenset(name for name in names if name.startswith("_") and not name.startswith("__"))


@functools.cache
def textual_names(base: type) -> frozenset[str]:
    """What a Textual class defines or sets on its instances."""
    import re

    assigned = re.findall(r"self\.(_[A-Za-z]\w*)\s*[:=]", inspect.getsource(base))
    return frozenset(vars(base)) | frozenset(assigned)


def ui_modules() -> list[str]:
    """The modules that may subclass Textual's classes: widgets/, app/tui/screens/ and app/*.py."""
    import pkgutil

    import app
    import app.tui.screens
    import widgets

    names = [info.name for info in pkgutil.iter_modules(app.__path__, "app.") if not info.ispkg]
    for package in (app.tui.screens, widgets):
        names += [info.name for info in pkgutil.iter_modules(package.__path__, package.__name__ + ".")]
    return [name for name in names if name != "widgets.textual_internals"]


def test_no_class_of_ours_overrides_a_textual_private_name_by_accident() -> None:
    """A Whimbrel widget, screen or app (or a mixin of one) that names an attribute or method as
    Textual does replaces Textual's (an app's `_attach`, a pane's `_running`): only
    widgets/textual_internals.py may do that, on purpose."""
    import importlib

    clashes: set[str] = set()
    for module_name in ui_modules():
        module = importlib.import_module(module_name)
        for cls in vars(module).values():
            if not (inspect.isclass(cls) and cls.__module__ == module_name and issubclass(cls, DOMNode)):
                continue
            theirs = set().union(*(textual_names(base) for base in cls.__mro__
                                   if base.__module__.split(".")[0] == "textual"))
            for own in cls.__mro__:
                if own.__module__.split(".")[0] in ("app", "widgets") and \
                        own.__module__ != "widgets.textual_internals":
                    same = underscore_names_defined_in(own) & theirs
                    clashes |= {f"{own.__module__}.{own.__qualname__}.{name}" for name in same}
    assert not clashes, f"these replace Textual's own attributes: {sorted(clashes)}"


async def test_a_screen_behind_a_dialog_that_went_idle_during_a_batch_paints_when_the_batch_ends() -> None:
    """Textual paints nothing during a batch update, and its end tells only the app: a screen that
    went idle meanwhile keeps its changes unpainted (a theme previewed under the picker left the
    screen behind it in the old theme). ScreensPaintAfterBatch has it look again."""
    from textual.screen import ModalScreen

    class Dialog(ModalScreen):
        DEFAULT_CSS = "Dialog { background: $background 40%; }"

        def compose(self) -> ComposeResult:
            yield Label("dialog")

    class Host(ScreensPaintAfterBatch):
        def compose(self) -> ComposeResult:
            yield Label("before", id="behind")

    app = Host()
    async with app.run_test() as pilot:
        behind = app.query_one("#behind", Label)
        base = app.screen
        await app.push_screen(Dialog())
        await wait_for(pilot, lambda: isinstance(app.screen, Dialog) and app.screen.is_mounted)
        with app.batch_update():
            behind.update("after")
            await wait_for(pilot, lambda: waits_for_paint(base, behind), message="the change waiting in the batch")
            await pilot.pause()  # the screen behind goes idle inside the batch: nothing is painted
            assert waits_for_paint(base, behind), changed("App._end_batch", "painted during a batch")
        await wait_for(pilot, lambda: not waits_for_paint(base, behind),
                       message="the screen behind the dialog painted once the batch ended")


# ---- painted lines freed when dropped (divide_whole_strips_without_cycles) ------------------------
def _refers_to_itself(start: object) -> bool:
    """Whether `start` can be reached from what it refers to (it is in a reference cycle)."""
    import gc

    seen: set[int] = set()
    todo = list(gc.get_referents(start))
    while todo:
        item = todo.pop()
        if item is start:
            return True
        if id(item) not in seen:
            seen.add(id(item))
            todo.extend(gc.get_referents(item))
    return False


def test_textuals_own_divide_still_keeps_a_whole_strip_in_a_cycle() -> None:
    """If this fails, Textual no longer caches `[self]` in the strip: the fix can go."""
    from rich.segment import Segment
    from textual.strip import Strip

    strip = Strip([Segment("a line")])
    assert Strip.divide.textual_divide(strip, [strip.cell_length]) == [strip]
    assert _refers_to_itself(strip), "Textual's Strip.divide no longer makes a divided whole strip a cycle"


def test_a_strip_divided_at_its_length_is_not_a_reference_cycle() -> None:
    from rich.segment import Segment
    from textual.strip import Strip

    strip = Strip([Segment("a line"), Segment(" more", rich.style.Style(bold=True))])
    assert strip.divide([strip.cell_length]) == [strip]
    assert strip.divide([strip.cell_length, strip.cell_length + 5]) == [strip]  # cuts past its end are ignored
    assert not _refers_to_itself(strip)
    other = Strip([Segment("a line"), Segment(" more", rich.style.Style(bold=True))])
    assert [piece.text for piece in strip.divide([2, 6, 11])] == \
        [piece.text for piece in Strip.divide.textual_divide(other, [2, 6, 11])] == ["a ", "line", " more"]


# ---- a container's grid of children (file_tall_widgets_in_few_squares) -----------------------------
def test_a_tall_widget_is_filed_in_few_grid_squares() -> None:
    from textual.geometry import Offset, Region
    from textual.layout import DockArrangeResult

    from widgets.textual_internals import GRID_HEIGHT

    assert "SpatialMap()" in inspect.getsource(DockArrangeResult), \
        changed("SpatialMap._grid_size", "is no longer made with its defaults for a layout")
    grid = SpatialMap()
    assert grid._grid_size[1] == GRID_HEIGHT, changed("SpatialMap._grid_size", "no longer comes from its defaults")
    grid.insert([(Region(0, 0, 120, 90_000), Offset(), False, False, "dormant parts"),
                 (Region(0, 90_000, 120, 3), Offset(), False, False, "the last line")])
    assert len(grid._map) <= 2 * (90_000 // GRID_HEIGHT + 1)  # 9,000 squares 20 lines tall
    assert set(grid.get_values_in_region(Region(0, 89_990, 120, 40))) == {"dormant parts", "the last line"}


# ---- a bracketed paste is text (paste_as_text) ------------------------------------------------------
def test_the_terminal_drivers_read_input_with_the_paste_as_text_parser() -> None:
    from textual.drivers import linux_driver, linux_inline_driver

    from widgets.textual_internals import PasteAsTextParser

    for driver in (linux_driver.LinuxDriver, linux_inline_driver.LinuxInlineDriver):
        assert "XTermParser(" in inspect.getsource(driver.run_input_thread), \
            changed("linux_driver.XTermParser", f"is no longer what {driver.__name__} builds its parser from")
    assert linux_driver.XTermParser is linux_inline_driver.XTermParser is PasteAsTextParser


def test_a_browser_tabs_app_reads_input_with_the_paste_as_text_parser() -> None:
    from textual.drivers import web_driver

    from widgets.textual_internals import PasteAsTextParser, paste_as_text

    assert "XTermParser(" in inspect.getsource(web_driver.WebDriver.run_input_thread), \
        changed("web_driver.XTermParser", "is no longer what WebDriver builds its parser from")
    paste_as_text(web=True)  # as at the start of an app under TEXTUAL_DRIVER=…web_driver:WebDriver
    assert web_driver.XTermParser is PasteAsTextParser


def test_textuals_own_parser_still_reads_keys_inside_a_paste_and_its_start_as_ours_expects() -> None:
    """If the first assertion fails, Textual takes a paste as text itself: the fix can go. The second
    pins what PasteAsTextParser relies on: Textual's parser reads a paste's start and its end and
    sends only a Paste (of what it collected) for them."""
    from textual._xterm_parser import XTermParser

    def parsed(data: str) -> list[tuple[str, str]]:
        return [("paste", event.text) if isinstance(event, events.Paste) else ("key", event.key)
                for event in XTermParser().feed(data)]

    assert ("key", "ctrl+q") in parsed("\x1b[200~a\x1b\x11\x1b\x1b[201~"), \
        "Textual's own parser no longer presses keys pasted after an ESC"
    assert parsed("x\x1b[200~pasted\x1b[201~y") == [("key", "x"), ("paste", "pasted"), ("key", "y")], \
        changed("linux_driver.XTermParser", "no longer reads a bracketed paste's start and end as PasteAsTextParser expects")


# ---- the terminal writer never blocks a quit (writer_never_blocks_a_quit) -------------------------------
class GoneTerminal(io.StringIO):
    """A terminal that was closed: every write fails as a hung-up pty's does (EIO)."""

    def write(self, text: str) -> int:
        raise OSError(5, "Input/output error")


class FrozenTerminal(io.StringIO):
    """A terminal nobody reads: a write waits until `thaw` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.thaw = threading.Event()

    def write(self, text: str) -> int:
        self.thaw.wait()
        return len(text)


def finishes_within(seconds: float, work) -> bool:
    """True if `work()` returned within `seconds` (it runs on a daemon thread, so a hang fails the test
    instead of hanging it)."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the writer's EIO
def test_a_writer_whose_terminal_is_gone_takes_every_write_and_stops_at_once() -> None:
    from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread

    writer = WriterThread(GoneTerminal())
    writer.start()
    writer.write("the first frame")
    writer.join(10)
    assert not writer.is_alive(), "a failed write no longer ends Textual's writer thread: the patch may go"
    assert hasattr(writer, "_queue") and writer._queue.maxsize == MAX_QUEUED_WRITES, \
        changed("WriterThread._queue", "is no longer the writer's bounded queue")

    def write_a_lot_and_stop() -> None:
        for _ in range(MAX_QUEUED_WRITES * 2):
            writer.write("x")
        writer.stop()

    assert finishes_within(30, write_a_lot_and_stop), \
        changed("_writer_thread.WriterThread", "blocks a write or a stop once its terminal is gone")


def test_a_stop_waits_for_a_frozen_terminal_only_a_bounded_time() -> None:
    from textual.drivers._writer_thread import WriterThread

    from widgets.textual_internals import WRITER_STOP_SECONDS

    terminal = FrozenTerminal()
    writer = WriterThread(terminal)
    writer.start()
    writer.write("a frame nobody reads")
    started = time.monotonic()
    try:
        assert finishes_within(30, writer.stop), changed("_writer_thread.WriterThread", "stop waits forever")
        assert time.monotonic() - started >= WRITER_STOP_SECONDS * 0.9  # it did wait for the writer a while
    finally:
        terminal.thaw.set()
        writer.join(10)
    assert not writer.is_alive()
