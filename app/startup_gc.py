"""No garbage collection until the first frame is on screen.

Starting the app creates tens of thousands of objects that live as long as it does (modules,
classes, the first frame's widgets and styles) and little garbage. Left automatic, Python runs
~120 collections over them before the first frame is painted, one of them full: 30-45 ms of a
~300 ms start on a small machine, three times what a bare Textual app spends (issue 20). The CLI
therefore turns collections off from its first line (`hold`) until the app has painted its first
frame (`release`, from boot's start, which waits for that frame), and one full collection then frees
what starting left. An app started any other way (tests, headless) never holds them, and `release`
does nothing there.
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
    """Turn automatic collections back on if `hold` turned them off, after one full collection:
    it frees the little garbage that starting made and moves what lives on out of the young
    generations, so that boot's and the first turn's collections do not scan it all again (without
    it the first turn typed once the history is shown was ~10 ms slower). Otherwise do nothing."""
    global _held
    if _held:
        _held = False
        gc.collect()
        gc.enable()


def held() -> bool:
    """Whether collections are held now (for tests and the benchmark's sanity)."""
    return _held
