"""The one place that knows Textual's private API.

A few of Whimbrel's behaviours need something Textual does not offer publicly: its paint timer,
which widgets wait to be painted, widgets being removed, component styles, the footer's reaction to
binding changes, the prompt's key handling, the terminal driver. Each is wrapped here in a small
named function or class, and nothing else in app/ or widgets/ uses those names
(tests/test_architecture.py checks). Two fixes of Textual's behaviour and one setting are made here
too, when this module is imported: `divide_whole_strips_without_cycles`, `paste_as_text` and
`file_tall_widgets_in_few_squares`. tests/ui/test_textual_internals.py pins each one against the
installed Textual, so an upgrade that changes one fails there with a message naming it.
"""

from __future__ import annotations

import gc
import os
from typing import Any, Protocol

from textual import events
from textual._compositor import Compositor
from textual._parser import ParseEOF, ParseTimeout
from textual._spatial_map import SpatialMap
from textual._styles_cache import StylesCache
from textual._xterm_parser import BRACKETED_PASTE_END, BRACKETED_PASTE_START, XTermParser
from textual.app import App
from textual.css.styles import RenderStyles
from textual.dom import DOMNode
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer, TextArea

# Each private name used below, and what of Whimbrel depends on it (the pins and the architecture
# test read this; a new use gets its line here first).
PAINT = "the main screen's paint at the next frame (app/tui/screens/main.py, app/tui/screens/frame_timer.py)"
ECHO = "a typed key's echo painted at once (app/tui/screens/main.py)"
REMOVAL = "the main screen's layout before painting a widget being removed (app/tui/screens/main.py)"
COMPONENTS = "reply blocks' component styles worked out on first use (widgets/reply_markdown.py)"
FOOTER = "the footer's one rebuild per burst of binding changes (widgets/footer.py)"
INERT = "outside text made inert in every widget (widgets/terminal_guard.py)"
DORMANT = ("dormant parts of a long reply kept without a set of their dirty lines (widgets/dormant.py), and parts "
           "put to sleep without their rendered lines (widgets/transcript.py)")
TALL = "a tall widget (the dormant parts of a huge reply) filed in few grid squares (widgets/textual_internals.py)"
WRAP = "a prompt's lines wrapped as they are shown, control characters as their visible marks (widgets/prompt.py)"
PASTE = "a bracketed paste taken as text, whatever it holds (widgets/textual_internals.py)"
OVERLAP = "a partial paint (a cursor's blink, a streamed line) renders only the widgets it shows (app/tui/screens/main.py)"
FREED = ("parts of a long reply put to sleep freed at once, not at the next full garbage collection "
         "(widgets/transcript.py, widgets/textual_internals.py)")
WRITER = ("quitting with the terminal gone: no write and no stop waits forever on a terminal writer "
          "(widgets/textual_internals.py, app/tui/lifecycle/quit_signals.py)")
PRIVATE_NAMES: dict[str, str] = {
    "Screen._update_timer": PAINT,
    "Screen._on_timer_update": PAINT,
    "App._handle_exception": PAINT,
    "Screen._dirty_widgets": ECHO,
    "Screen._compositor": REMOVAL,
    "Screen._layout_required": REMOVAL,
    "DOMNode._pruning": REMOVAL,
    "Widget._clear_arrangement_cache": REMOVAL,
    "DOMNode._get_component_classes": COMPONENTS,
    "DOMNode._component_styles": COMPONENTS,
    "MessagePump._attach": COMPONENTS,
    "Footer.bindings_changed": FOOTER,
    "Footer._bindings_ready": FOOTER,
    "Widget._anchor_released": "the transcript following new output (widgets/transcript.py)",
    "TextArea._on_key": "the prompt's own keys: Enter sends, history, completion (widgets/prompt.py)",
    "App._driver": "desktop notifications written to the terminal (app/tui/comforts/attention.py)",
    "App._batch_count": "tests that paint when Textual would (tests/ui/test_frame_timer.py)",
    "App._end_batch": "the screens behind a dialog repainted after a batch update, e.g. a theme preview (app/tui/app.py)",
    "App._background_screens": "tests that read what a repaint sends to the terminal (tests/ui/test_inline_images.py)",
    # Rich's Text and Textual's Content pass every string through one translate table each
    "Text._CONTROL_STRIP_TRANSLATE": INERT,
    "Content._CONTROL_STRIP_TRANSLATE": INERT,
    "Widget._styles_cache": DORMANT,
    "DOMNode._css_styles": FREED,
    "DOMNode._inline_styles": FREED,
    "Compositor._arrange_root": FREED,
    "Compositor._get_renders": OVERLAP,
    "SpatialMap._grid_size": TALL,
    "_wrapped_document.compute_wrap_offsets": WRAP,
    "linux_driver.XTermParser": PASTE,
    "web_driver.XTermParser": PASTE + " (in a browser: `whimbrel serve`)",
    "_writer_thread.WriterThread": WRITER,
    "WriterThread._queue": WRITER,
}


# -- the control-code tables ------------------------------------------------------------------
def control_code_tables() -> tuple[dict[int, str | None], ...]:
    """The translate tables that Rich's `Text` and Textual's `Content` run every string through.

    Both drop a few control codes and let the rest through; terminal_guard extends them so none is
    ever emitted (pinned in tests/ui/test_inert_text.py).
    """
    import rich.control
    import textual.content

    return rich.control._CONTROL_STRIP_TRANSLATE, textual.content._CONTROL_STRIP_TRANSLATE


def wrap_text_areas_as_shown() -> None:
    """Make a TextArea (the prompt) find where its lines wrap in the text as it is shown.

    Textual measures the document's own characters to wrap a line, while it draws it, like all text,
    through the tables above: a bidi control (U+202E), zero cells wide as typed, is drawn as a mark
    one cell wide. Each such character made a line one cell wider than the wrap allowed, so the end
    of the line and the cursor after it went past the prompt's edge. Measured through the same
    tables (their one-for-one replacements: offsets in the line stay valid), wrapping, the cursor
    and the text drawn agree. Everything else about wrapping stays Textual's."""
    from textual.document import _wrapped_document

    compute = _wrapped_document.compute_wrap_offsets
    if getattr(compute, "as_shown", False):
        return

    def as_shown(text: str, width: int, tab_size: int, fold: bool = True,
                 precomputed_tab_sections: list[tuple[str, int]] | None = None) -> list[int]:
        table = {code: shown for code, shown in control_code_tables()[0].items() if shown is not None and len(shown) == 1}
        if precomputed_tab_sections is not None:
            precomputed_tab_sections = [(section.translate(table), tab) for section, tab in precomputed_tab_sections]
        return compute(text.translate(table), width, tab_size, fold, precomputed_tab_sections)

    as_shown.as_shown = True  # type: ignore[attr-defined]
    as_shown.textual_compute = compute  # type: ignore[attr-defined]  # (the pins call it)
    _wrapped_document.compute_wrap_offsets = as_shown


wrap_text_areas_as_shown()


# -- the screen's paint ------------------------------------------------------------------------
class PaintTimer(Protocol):
    """What Textual's screen asks of its paint timer: resumed by each change, paused by the paint."""

    def resume(self) -> None: ...

    def pause(self) -> None: ...


class OverlapCompositor(Compositor):
    """A compositor whose partial updates render only what they paint: the widgets seen in the area
    they update, and of each only the lines of that area.

    Textual's own renders each widget whose clip meets that area, whole, and a widget's clip is mostly
    the whole screen: a prompt's blinking cursor (one line, twice a second) rendered every line of
    every widget on screen, the transcript, the tab bar and the footer included. What lies outside
    the area is never painted (the spans a partial update writes all lie in it), so it is left out.
    """

    def _get_renders(self, crop: Region | None = None):
        if crop is None:
            yield from super()._get_renders(None)
            return
        for widget, (region, clip) in self.visible_widgets.items():
            rows = Region(clip.x, crop.y, clip.width, crop.height)  # the area's lines, the clip's width
            part = region.intersection(clip).intersection(rows)
            if not (part and crop.overlaps(part)):
                continue  # nothing of this widget shows in the area
            yield region, clip.intersection(rows), widget.render_lines(
                Region(part.x - region.x, part.y - region.y, part.width, part.height))


class PaintTimerScreen(Screen):
    """A Screen that paints from the timer `new_paint_timer()` makes instead of Textual's interval.

    Textual's screen reads its timer from `Screen._update_timer`; the timer's callback should call
    `paint_changes()`, which pauses the timer as Textual's own callback does. Its partial paints
    render only the widgets they show (`OverlapCompositor`).
    """

    paint_timer: PaintTimer | None = None  # made on first use

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = OverlapCompositor()

    def new_paint_timer(self) -> PaintTimer:
        raise NotImplementedError(f"{type(self).__name__} must make its paint timer")

    @property
    def _update_timer(self) -> PaintTimer:
        if self.paint_timer is None:
            self.paint_timer = self.new_paint_timer()
        return self.paint_timer

    def paint_changes(self) -> None:
        """Textual's paint: a layout if one was asked for, then the widgets waiting to be painted."""
        self._on_timer_update()


class ScreensPaintAfterBatch(App):
    """An App whose visible screens look for changes to paint when a batch update ends.

    A screen that goes idle during a batch paints nothing (Textual holds paints then), and the end of
    the batch tells only the app: the screen's changes wait for some unrelated event. Under a dialog
    that can be forever (the theme picker's preview left the screen behind it in the old theme)."""

    def _end_batch(self) -> None:
        super()._end_batch()
        if not self._batch_count:
            for screen in self.screen_stack:
                if screen.is_attached and screen.is_current:
                    screen.check_idle()


def report_exception(app: App, error: Exception) -> None:
    """Report `error` as Textual does for an exception in a timer callback (the app exits with it)."""
    app._handle_exception(error)


def waits_for_paint(screen: Screen, widget: Widget) -> bool:
    """Whether `widget` has changed and is waiting for `screen`'s next paint."""
    return widget in screen._dirty_widgets


def placed_widgets(screen: Screen) -> set[Widget]:
    """The widgets the last layout placed on `screen` (what a paint renders)."""
    return set(screen._compositor.widgets)


def is_being_removed(widget: DOMNode) -> bool:
    """Whether `widget` is being removed: from `remove()` until it has left the DOM."""
    return widget._pruning


def arrange_again(widget: Widget) -> None:
    """Forget how `widget`'s children were arranged, so the next layout arranges them afresh."""
    widget._clear_arrangement_cache()


def require_layout(screen: Screen) -> None:
    """Make `screen`'s next paint lay it out first."""
    screen._layout_required = True


def updates_held(app: App) -> bool:
    """Whether the app is inside `batch_update()`, when Textual paints nothing (tests wait it out)."""
    return app._batch_count > 0


# -- component styles --------------------------------------------------------------------------
def component_styles_on_first_use(widget_class: type[Widget]) -> dict[str, Any]:
    """Class attributes for a subclass of `widget_class` whose component styles (COMPONENT_CLASSES)
    are worked out when a render first asks for one, instead of each time the stylesheet is
    applied to a widget (on mount, on every style change)."""
    components = widget_class._get_component_classes()

    def get_component_styles(self: Widget, *names: str) -> RenderStyles:
        """Textual's, with each component's styles worked out on first use (as the stylesheet would)."""
        for name in names:
            if name in components and name not in self._component_styles:
                virtual_node = DOMNode(classes=name)
                virtual_node._attach(self)
                self.app.stylesheet.apply(virtual_node, animate=False)
                self._component_styles[name] = virtual_node.styles
        return widget_class.get_component_styles(self, *names)

    def notify_style_update(self: Widget) -> None:
        """The stylesheet changed (a theme, a pseudo-class): component styles are worked out again."""
        had_components = bool(self._component_styles)
        self._component_styles.clear()
        widget_class.notify_style_update(self)
        if had_components:
            self.refresh()

    return {"_get_component_classes": classmethod(lambda cls: frozenset()),  # the stylesheet skips them
            "get_component_styles": get_component_styles, "notify_style_update": notify_style_update}


# -- the footer, the prompt, the transcript, the terminal -----------------------------------------
class BindingsFooter(Footer):
    """Textual's Footer, whose reaction to a change of the active bindings (the undocumented
    `Footer.bindings_changed`, which recomposes every time) is `active_bindings_changed`."""

    def active_bindings_changed(self, screen: Screen) -> None:
        raise NotImplementedError(f"{type(self).__name__} must say how it follows binding changes")

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True  # Footer.compose shows no keys until this is set
        self.active_bindings_changed(screen)


class KeyFirstTextArea(TextArea):
    """A TextArea that offers each key to `take_key` before its own key handling (`TextArea._on_key`,
    which inserts the character); a key taken there goes no further."""

    def take_key(self, event: events.Key) -> bool:
        """Handle `event` and return True, or return False to let the TextArea have it."""
        return False

    async def _on_key(self, event: events.Key) -> None:
        if self.take_key(event):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)


def anchor_released(widget: Widget) -> bool:
    """Whether the user scrolled an anchored `widget` away from its end (it stops following)."""
    return widget._anchor_released


def write_to_terminal(app: App, text: str) -> bool:
    """Write `text` (an escape sequence) straight to the terminal; False when there is none."""
    driver = getattr(app, "_driver", None)
    if driver is None or app.is_headless:
        return False
    driver.write(text)
    driver.flush()
    return True


def terminal_output(screen: Screen) -> str:
    """What a full repaint of `screen` writes to the terminal, escape sequences and all (tests read it
    to see which widget sends an image protocol's sequences: widgets/inline_image.py)."""
    update = screen._compositor.render_update(full=True, screen_stack=screen.app._background_screens)
    return update.render_segments(screen.app.console)


# -- a tall blank widget without its set of dirty lines -------------------------------------------
class _NoDirtyLines(StylesCache):
    """Keeps no set of dirty lines: a dirty region drops the cached lines instead (they are rendered
    again when next shown). Textual's cache adds every line of a refreshed widget to a set that never
    shrinks below what was not painted since; for a widget 90,000 lines tall (the dormant parts of a
    10 MB reply) that set alone was about 7 MB."""

    def set_dirty(self, *regions) -> None:
        self.clear()


def without_dirty_lines(widget: Widget) -> None:
    """Give `widget` a styles cache that keeps no set of dirty lines (for tall, blank, cheap-to-render widgets)."""
    widget._styles_cache = _NoDirtyLines()


def forget_rendered_lines(widget: Widget) -> None:
    """Drop the lines Textual keeps rendered for `widget` (and its set of dirty lines): for a widget
    leaving the screen for good. A removed widget is freed only by a full garbage collection (its
    styles point back at it), which the app defers while output streams (app/runtime/idle_gc.py); until then
    its rendered lines, a few thousand strips per megabyte of a streamed reply, would stay with it."""
    widget._styles_cache.clear()


def forget_markdown_text(widget: Widget) -> None:
    """Drop the copies of its text that a Markdown widget or block keeps: the document's source, a
    block's tokens (the parsed text, again in each inline child) and its Content (Static keeps it
    and its Visual). Only for a widget removed for good: like its rendered lines, they would wait
    with it for a full collection, three to four copies of a reply's text for every part put to
    sleep while it streams."""
    from textual.content import Content
    from textual.widgets import Markdown, Static
    from textual.widgets._markdown import MarkdownBlock

    if isinstance(widget, Markdown):
        widget._markdown, widget._initial_markdown, widget._table_of_contents = "", None, None
    if isinstance(widget, MarkdownBlock):
        widget._token, widget._inline_token, widget._content = None, None, Content()
        widget._blocks.clear()
    if isinstance(widget, Static):
        widget._Static__content, widget._Static__visual = "", None


def free_when_dropped(widget: Widget) -> None:
    """Break the reference cycle between a widget removed for good and its styles (each of its two
    `Styles` points back at it), so that it is freed as soon as nothing holds it. A removed widget is
    otherwise freed only by a full garbage collection, which the app defers while output streams
    (app/runtime/idle_gc.py): the parts of a 10 MB reply put to sleep piled up as thousands of dead
    widgets, and the memory they filled stayed scattered with the app after they were collected.
    A style set on the widget afterwards no longer refreshes it (Textual skips a styles' refresh
    without a node), which a widget that is gone does not need."""
    widget._css_styles.node = None
    widget._inline_styles.node = None


def rendered_lines(widget: Widget) -> int:
    """How many rendered lines Textual keeps for `widget` (tests read it)."""
    return len(widget._styles_cache._cache)


def dirty_lines(widget: Widget) -> int:
    """How many of `widget`'s lines Textual's styles cache has marked to render again (tests read it)."""
    return len(widget._styles_cache._dirty_lines)


# -- rendered lines freed when dropped -----------------------------------------------------------
def divide_whole_strips_without_cycles() -> None:
    """Make `Strip.divide` at a strip's own length return `[strip]` without keeping it in the strip's cache.

    The compositor divides every line it paints at the edges of what covers it; a line nothing covers
    is cut at its own length, into `[self]`, which Textual caches in the strip itself: each painted line
    became a reference cycle (with its seven small caches) that only a garbage collection frees. Lines
    live a frame or longer, so the young collections pass them to the oldest generation, whose
    collections the app defers while output streams (app/runtime/idle_gc.py): while a 10 MB reply streamed,
    tens of thousands of them piled up and the memory they filled stayed with the app.
    Nothing else changes: other cuts go to Textual's own `divide` and its cache."""
    if getattr(Strip.divide, "whole_without_cycle", False):
        return
    divide = Strip.divide

    def divide_whole_without_cycle(self: Strip, cuts):
        length = self.cell_length
        cuts = [cut for cut in cuts if cut <= length]
        if cuts == [length]:
            return [self]
        return divide(self, cuts)

    divide_whole_without_cycle.whole_without_cycle = True  # type: ignore[attr-defined]
    divide_whole_without_cycle.textual_divide = divide  # type: ignore[attr-defined]  # (the pins call it)
    Strip.divide = divide_whole_without_cycle  # type: ignore[method-assign]


divide_whole_strips_without_cycles()


def arrange_without_lasting_cycles() -> None:
    """Make `Compositor._arrange_root` run without a garbage collection in the middle of it.

    Textual's arrange places widgets with a local function that calls itself: a reference cycle that
    holds the map of every widget placed, garbage once the arrange returns. The arrange allocates
    enough to start a young collection or two while it runs, which moved that cycle, still alive then,
    into the older generations, whose collections the app defers while output streams
    (app/runtime/idle_gc.py): each such cycle kept every widget of that frame, parts of a long reply
    removed since included, until the next full collection. Run without a collection in between, the
    cycle is garbage while still young and the next young collection frees it. Nothing else changes."""
    if getattr(Compositor._arrange_root, "without_lasting_cycles", False):
        return
    arrange = Compositor._arrange_root

    def arrange_root(self: Compositor, root: Widget, size, visible_only: bool = True):
        if not gc.isenabled():
            return arrange(self, root, size, visible_only)
        gc.disable()
        try:
            return arrange(self, root, size, visible_only)
        finally:
            gc.enable()

    arrange_root.without_lasting_cycles = True  # type: ignore[attr-defined]
    arrange_root.textual_arrange_root = arrange  # type: ignore[attr-defined]  # (the pins call it)
    Compositor._arrange_root = arrange_root  # type: ignore[method-assign]


arrange_without_lasting_cycles()


# -- the grid that finds a container's visible children ----------------------------------------
GRID_HEIGHT = 200  # lines of a square of the grid (Textual's default is 20)


def file_tall_widgets_in_few_squares() -> None:
    """Make the grid squares that Textual files a container's children in GRID_HEIGHT lines tall.

    Each child is listed in every square it covers, and the grid is built again on each layout: the
    dormant parts of a 10 MB reply (90,000 lines) were in 9,000 squares, ~1.7 MB kept and as much made
    again per layout while the reply streamed. A visible region of a screen's height meets
    one or two rows of squares either way; a taller square only lists more children that the region's
    own overlap test then leaves out."""
    width, _ = SpatialMap.__init__.__defaults__
    SpatialMap.__init__.__defaults__ = (width, GRID_HEIGHT)


file_tall_widgets_in_few_squares()


# -- a bracketed paste is text -------------------------------------------------------------------
class PasteAsTextParser(XTermParser):
    """Textual's terminal parser, except that everything between a bracketed paste's start and end
    is the paste's text.

    Textual's own reads an ESC inside a paste as the start of an escape sequence: what follows it is
    left out of the paste and sent as keys instead, and ahead of the paste. A pasted `text ESC ^Q ESC`
    pressed Ctrl+Q (the app quit), and pasted coloured output came out reordered. Here Textual's
    parser still reads everything outside pastes (keys, mouse, focus, Escape's timeout); once it has
    read a paste's start, the characters up to the paste's end are taken here, and its end is then
    handed to it so that it reads keys again (the empty paste it makes of that is dropped)."""

    def parse(self, token_callback):
        def outside_pastes(token) -> None:
            if not isinstance(token, events.Paste):  # the pastes are this parser's own
                token_callback(token)

        textual_parser = super().parse(outside_pastes)
        awaiting = next(textual_parser)
        sequence = ""  # the escape sequence being read, while it can still be a paste's start
        while True:
            try:
                character = yield awaiting
            except ParseTimeout as timeout:  # a lone ESC: Textual's parser sends the Escape key
                sequence = ""
                awaiting = textual_parser.throw(timeout)
                continue
            except ParseEOF as end:
                try:
                    textual_parser.throw(end)
                except StopIteration:
                    pass
                return
            try:
                awaiting = textual_parser.send(character)
            except StopIteration:
                return
            sequence = character if character == "\x1b" else sequence + character if sequence else ""
            if not BRACKETED_PASTE_START.startswith(sequence):
                sequence = ""
            elif sequence == BRACKETED_PASTE_START:  # Textual's parser has read it: the paste is ours
                sequence = ""
                text = yield from self._pasted_text()
                token_callback(events.Paste(text.replace("\x00", "")))  # as Textual's: no NUL
                for character in BRACKETED_PASTE_END:
                    awaiting = textual_parser.send(character)

    def _pasted_text(self):
        """Read up to the paste's end; the text before it."""
        characters: list[str] = []
        end = len(BRACKETED_PASTE_END)
        while True:
            character = yield self.read1()
            characters.append(character)
            if character == BRACKETED_PASTE_END[-1] and "".join(characters[-end:]) == BRACKETED_PASTE_END:
                return "".join(characters[:-end])


def paste_as_text(web: bool | None = None) -> None:
    """Make the terminal drivers read input with `PasteAsTextParser` (each builds its parser from the
    name `XTermParser` of its module when its input thread starts). The web driver too when this
    process runs it (a browser tab's app, `whimbrel serve`, where TEXTUAL_DRIVER names it): only then,
    so a terminal's start does not import it."""
    from textual.drivers import linux_driver, linux_inline_driver

    modules = [linux_driver, linux_inline_driver]
    if web if web is not None else "web_driver" in os.environ.get("TEXTUAL_DRIVER", ""):
        from textual.drivers import web_driver

        modules.append(web_driver)
    for driver_module in modules:
        driver_module.XTermParser = PasteAsTextParser  # type: ignore[attr-defined,misc]


paste_as_text()


# -- the terminal writer never blocks a quit -------------------------------------------------------------
WRITER_STOP_SECONDS = 2.0  # how long a stop waits for the writer to drain into a live terminal
_WRITE_RETRY_SECONDS = 0.25


def writer_never_blocks_a_quit() -> None:
    """Make Textual's terminal writer thread unable to hang the app.

    A writer's `write` puts text on a bounded queue and its `stop` puts an end mark and joins the
    thread, both without a limit. Once the terminal is gone (closed: the write fails with EIO) the
    thread dies, its queue fills and the next `write`, or `stop`, waits forever: Whimbrel, asked to
    quit by the SIGHUP of a closing terminal, would stay alive with its store open. The SIGCONT a
    closing terminal sends too makes Textual start a second writer, so this happens to whichever
    writer the driver holds at the end. Here a write to a dead writer is dropped (nobody can read it)
    and a stop waits at most WRITER_STOP_SECONDS.
    """
    import queue

    from textual.drivers._writer_thread import WriterThread

    def write(self: WriterThread, text) -> None:
        while True:
            try:
                self._queue.put(text, timeout=_WRITE_RETRY_SECONDS)
                return
            except queue.Full:
                if not self.is_alive():
                    return  # the terminal is gone: the text has nowhere to go

    def stop(self: WriterThread) -> None:
        if self.is_alive():
            write(self, None)
        self.join(WRITER_STOP_SECONDS)

    write.__doc__ = WriterThread.write.__doc__
    stop.__doc__ = "Stop the thread; wait for it at most WRITER_STOP_SECONDS (widgets/textual_internals.py)."
    WriterThread.write = write  # type: ignore[method-assign]
    WriterThread.stop = stop  # type: ignore[method-assign]


writer_never_blocks_a_quit()
