"""Full garbage collections while the app is idle, never in the middle of a streamed reply.

A full collection walks every object the app holds (a long session is hundreds of thousands) and
stops everything for its whole run: 0.2-0.5 s on a small machine, a visible freeze and a keystroke
that waits. Left automatic, Python starts one whenever enough objects have survived younger
collections, which mostly happens while output streams. Once booted in a real terminal, the app
therefore turns automatic full collections off (`defer_full_collections`) and, while one is due,
checks once a second (`collect_if_due`): after FULL_COLLECTION_EVERY younger collections it collects
in the first moment nothing streams and no key was typed for IDLE_SECONDS; a session that is never
idle still gets one after MAX_DEFERRED younger collections, so memory stays bounded. Until one is
due the check sleeps (`when_due` wakes it), so an idle app is not woken for nothing.

After a full collection the memory it freed is handed back to the system (`return_free_memory`):
glibc's allocator keeps freed memory for reuse, so after a 10 MB reply (its widgets, the copies made
to save and show it) the app stayed tens of MB larger than what it still used. A reply
past LARGE_OUTPUT characters makes such a collection due at the next idle moment (`after_output`),
however few younger collections ran since the last one.

Large blocks also go back at once while output streams (`map_large_blocks_apart`, set up with
`defer_full_collections`): glibc serves a block from MMAP_THRESHOLD bytes on by a mapping of its own,
returned when freed, but it raises that threshold to the size of each such block freed (up to 32 MB),
so once a few big strings of a streaming reply (the screen's output, the slices saved) had come and
gone, the next ones came from the heap and left holes there: ~5 MB more at the peak of a 10 MB reply.
Setting the threshold keeps it where it is.
"""

from __future__ import annotations

import gc
import sys
from typing import Callable

FULL_COLLECTION_EVERY = 100  # younger (generation 1) collections before a full one is due
MAX_DEFERRED = 1000  # ... and before one runs even though the app never goes idle
IDLE_SECONDS = 2.0  # no key for this long (and nothing streaming) counts as idle
NEVER = 1_000_000_000  # a generation-2 threshold that Python never reaches
LARGE_OUTPUT = 1_000_000  # characters of one reply that make a full collection due once idle
MMAP_THRESHOLD = 128 * 1024  # bytes from which a block is a mapping of its own (glibc's initial value)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)


def defer_full_collections() -> None:
    """From now on, only `collect_if_due` starts full collections (and large blocks are mapped apart)."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)
    map_large_blocks_apart()


def map_large_blocks_apart() -> bool:
    """Keep glibc's thresholds for mapping a block apart, and trimming the heap's top, at MMAP_THRESHOLD
    (setting them turns their growth off). False where there is no glibc: nothing is done there."""
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(libc.mallopt(M_TRIM_THRESHOLD, MMAP_THRESHOLD))


def collect_if_due(idle: bool) -> bool:
    """Run a full collection if one is due and the app is idle (or it is long overdue)."""
    global _asked
    since_full = gc.get_count()[2]  # generation-1 collections since the last full one
    if since_full >= MAX_DEFERRED or (idle and (since_full >= FULL_COLLECTION_EVERY or _asked)):
        _asked = False
        gc.collect()
        return_free_memory()
        return True
    return False


def return_free_memory() -> bool:
    """Give memory that the C allocator holds free back to the system (glibc's `malloc_trim`; a few
    milliseconds). False where there is no such call (macOS, musl): nothing is done there."""
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def _glibc():
    """glibc (its `malloc_trim` and `mallopt`), or None where there is none (macOS, musl)."""
    global _libc
    if _libc is None:
        import ctypes

        try:
            _libc = ctypes.CDLL("libc.so.6")  # glibc's name on Linux
            _libc.malloc_trim, _libc.mallopt  # noqa: B018  (musl has no malloc_trim)
        except (OSError, AttributeError):
            _libc = False
    return _libc or None


_libc = None  # glibc once looked up, False where there is none
_asked = False  # a large reply has ended since the last full collection


def after_output(size: int) -> None:
    """A reply of `size` characters has ended: from LARGE_OUTPUT on, a full collection is due at the
    next idle moment (`when_due` wakes its check at the next younger collection)."""
    global _asked
    _asked = _asked or size >= LARGE_OUTPUT


def when_due(wake: Callable[[], None]) -> Callable[[dict], None]:
    """Call `wake` once each time younger collections (or a large reply) make a full one due (from
    whichever thread collected: `wake` must be thread-safe); returns the gc callback, for
    `gc.callbacks.remove`."""
    armed = [True]

    def callback(phase: str, info: dict) -> None:
        if phase != "stop":
            return
        if info["generation"] == 2:
            armed[0] = True  # collected: wake again when the next one is due
        elif armed[0] and (gc.get_count()[2] >= FULL_COLLECTION_EVERY or _asked):
            armed[0] = False
            try:
                wake()
            except RuntimeError:  # the app's event loop has closed: nothing is left to wake
                gc.callbacks.remove(callback)

    gc.callbacks.append(callback)
    return callback


SWITCH_INTERVAL = 0.001  # seconds a thread may hold the GIL while another waits (default 0.005)


def tune_interpreter_for_input() -> None:
    """Once booted (in a real terminal): keep interpreter pauses short while output streams.

    Full garbage collections stop the UI for their whole run. What boot loaded lives as long as
    the app, so it is frozen out of every later collection (re-scanning it took ~0.5 s per full
    collection here), and full collections wait for a moment when the app is idle (above).
    The threads that read keys and write the screen get the GIL after 1 ms instead of 5 ms of a
    busy event loop. Headless apps (tests) keep the defaults: a frozen object is never collected.
    """
    gc.freeze()
    defer_full_collections()
    sys.setswitchinterval(SWITCH_INTERVAL)
