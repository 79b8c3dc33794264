"""The main screen's paint timer (app/tui/screens/frame_timer.py): at most one paint per frame, and
never a frame later than needed, on a fake clock."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from app.tui.screens.frame_timer import FrameTimer

FRAME = 1 / 60


@dataclass
class Handle:
    at: float
    callback: object
    cancelled: bool = False

    def when(self) -> float:
        return self.at

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class FakeLoop:
    """`time` and `call_at`, as the timer uses them; `advance` runs what is due."""

    now: float = 100.0
    handles: list[Handle] = field(default_factory=list)

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback) -> Handle:
        handle = Handle(when, callback)
        self.handles.append(handle)
        return handle

    def advance(self, seconds: float) -> None:
        end = self.now + seconds
        while due := sorted((h for h in self.handles if not h.cancelled and h.at <= end), key=Handle.when):
            handle = due[0]
            self.handles.remove(handle)
            self.now = max(self.now, handle.at)
            handle.callback()
        self.now = end


def painting_timer(loop: FakeLoop, urgent=lambda: False) -> tuple[FrameTimer, list[float]]:
    """A timer whose callback records the time and pauses it, as Screen._on_timer_update does."""
    paints: list[float] = []

    def paint() -> None:
        timer.pause()
        paints.append(loop.now)

    timer = FrameTimer(paint, FRAME, urgent=urgent, loop=loop)
    return timer, paints


def test_a_change_after_a_quiet_moment_is_painted_at_once() -> None:
    loop = FakeLoop()
    timer, paints = painting_timer(loop)
    timer.resume()
    loop.advance(0)
    assert paints == [100.0]


def test_a_change_soon_after_a_paint_waits_for_the_rest_of_that_frame_only() -> None:
    loop = FakeLoop()
    timer, paints = painting_timer(loop)
    timer.resume()
    loop.advance(0.005)
    timer.resume()  # 5 ms after the last paint
    loop.advance(0.1)
    assert paints == [100.0, pytest.approx(100.0 + FRAME)]  # Textual's own timer would skip to the frame after


def test_several_changes_in_one_frame_make_one_paint() -> None:
    loop = FakeLoop()
    timer, paints = painting_timer(loop)
    timer.resume()
    loop.advance(0.001)
    for _ in range(5):
        timer.resume()
        loop.advance(0.001)
    loop.advance(0.1)
    assert paints == [100.0, pytest.approx(100.0 + FRAME)]


def test_an_urgent_change_is_painted_at_once_even_within_a_frame() -> None:
    loop, echo_ready = FakeLoop(), [False]
    timer, paints = painting_timer(loop, urgent=lambda: echo_ready[0])
    timer.resume()
    loop.advance(0.002)
    timer.resume()  # a pulse: due at the next frame
    loop.advance(0.002)
    echo_ready[0] = True  # a key's echo is ready: the pending paint comes forward
    timer.resume()
    loop.advance(0)
    assert paints == [100.0, pytest.approx(100.004)]
    echo_ready[0] = False
    loop.advance(0.1)
    assert len(paints) == 2  # the paint that was due later is not made twice


def test_a_paused_timer_does_not_paint_and_errors_are_reported() -> None:
    loop, errors = FakeLoop(), []
    timer = FrameTimer(lambda: 1 / 0, FRAME, on_error=errors.append, loop=loop)
    timer.resume()
    timer.pause()
    loop.advance(0.1)
    assert errors == []
    timer.resume()
    loop.advance(0)
    timer.stop()
    assert [type(error) for error in errors] == [ZeroDivisionError]
    loop.advance(1)
    assert len(errors) == 1  # stopped: no interval left running


async def test_the_main_screen_never_paints_a_prompt_that_is_being_removed(tmp_path) -> None:
    """A removed widget keeps its place on the screen until the layout its removal asks for at the
    end, but loses its styles before that; a paint in between (which the main screen can now make
    at once) lays out first instead of rendering it."""
    from tests.ui.helpers import booted, make_app, wait_for
    from widgets.textual_internals import placed_widgets, updates_held
    from widgets.workstream_view import WorkstreamView

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await booted(pilot)
        # Textual paints nothing inside batch_update (the footer rebuilds its keys in one after boot
        # moves the focus): the paint below must come when Textual would make it.
        await wait_for(pilot, lambda: not updates_held(app), message="no batch update in progress")
        screen = app.screen
        view = screen.query_one(WorkstreamView)
        prompt = view.prompt
        assert prompt in placed_widgets(screen)
        removed = view.remove()  # the view and its prompt are being removed, and still placed
        prompt._component_styles.clear()  # ... and the prompt has exited: it lost its styles
        screen.refresh()
        screen._paint()  # as the frame timer would, right now
        assert prompt not in placed_widgets(screen)
        await removed
