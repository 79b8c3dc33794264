"""No garbage collection until the first frame is on screen.

Starting the app creates tens of thousands of objects that live as long as it does (modules,
classes, the first frame's widgets and styles) and little garbage (~7K objects, ~1 MB). Left
automatic, Python runs ~120 collections over them before the first frame is painted, one of them
full: 30-45 ms of a ~300 ms start on a small machine, three times what a bare Textual app spends.
The CLI therefore turns collections off from its first line (`hold`) until the app has
painted its first frame (`release`, from boot's start, which waits for that frame), and then
freezes what starting made rather than collecting it, as boot's end freezes what boot loaded
(`tune_interpreter_for_input` in idle_gc.py, called by app/tui/app.py). An app started any other
way (tests, headless) never holds them, and `release` does nothing there.
"""

from __future__ import annotations

import gc

_held = False


def hold() -> None:
    """Turn automatic collections off until `release` (once per process, from the CLI)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release() -> None:
    """Turn automatic collections back on if `hold` turned them off, with what starting made frozen
    (`gc.freeze`: kept out of every later collection). Collecting it instead (a full collection, or
    the first young one over everything made since `hold`) took 20-40 ms on the event loop just as
    the screen was complete, and the first key typed then echoed 20-40 ms later; what is frozen
    lives as long as the app anyway, but for ~1 MB of garbage that starting left. Otherwise do
    nothing."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


def held() -> bool:
    """Whether collections are held now (tests read it)."""
    return _held
