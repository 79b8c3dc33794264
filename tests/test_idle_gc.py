"""Full garbage collections wait for an idle moment (app/runtime/idle_gc.py), with a bound when none comes."""

from __future__ import annotations

import gc
import sys

import pytest

import app.runtime.idle_gc as idle_gc


@pytest.fixture(autouse=True)
def keep_thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def younger_collections(count: int) -> None:
    gc.collect()  # start from zero: a full collection resets the count
    for _ in range(count):
        gc.collect(1)  # each one counts towards the next full collection


def test_automatic_full_collections_are_turned_off():
    idle_gc.defer_full_collections()
    young, middle, full = gc.get_threshold()
    assert full == idle_gc.NEVER and (young, middle) != (0, 0)


def test_a_due_full_collection_waits_until_the_app_is_idle():
    younger_collections(idle_gc.FULL_COLLECTION_EVERY)
    assert not idle_gc.collect_if_due(idle=False)  # streaming or typing: not now
    assert gc.get_count()[2] >= idle_gc.FULL_COLLECTION_EVERY
    assert idle_gc.collect_if_due(idle=True)
    assert gc.get_count()[2] == 0


def test_nothing_runs_before_it_is_due():
    younger_collections(3)
    assert not idle_gc.collect_if_due(idle=True)


def test_a_session_that_never_idles_still_gets_a_full_collection(monkeypatch):
    monkeypatch.setattr(idle_gc, "MAX_DEFERRED", 5)
    younger_collections(5)
    assert idle_gc.collect_if_due(idle=False)
    assert gc.get_count()[2] == 0


def test_the_check_is_woken_only_once_a_full_collection_is_due():
    """An idle app sleeps: `when_due` wakes its check when younger collections make one due, once."""
    wakes: list[int] = []
    callback = idle_gc.when_due(lambda: wakes.append(gc.get_count()[2]))
    try:
        younger_collections(idle_gc.FULL_COLLECTION_EVERY - 1)
        assert wakes == []
        gc.collect(1)
        gc.collect(1)  # still due: no second wake until a full collection has run
        assert len(wakes) == 1 and wakes[0] >= idle_gc.FULL_COLLECTION_EVERY
        younger_collections(idle_gc.FULL_COLLECTION_EVERY)  # collected (younger_collections starts with one)
        assert len(wakes) == 2
    finally:
        gc.callbacks.remove(callback)


def test_a_wake_into_a_closed_loop_stops_watching():
    def closed() -> None:
        raise RuntimeError("Event loop is closed")

    callback = idle_gc.when_due(closed)
    younger_collections(idle_gc.FULL_COLLECTION_EVERY)
    assert callback not in gc.callbacks


def resident_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def test_memory_freed_by_the_collection_goes_back_to_the_system():
    """glibc keeps freed memory for reuse: the holes a finished huge reply leaves kept the
    app tens of MB larger than what it used. After an idle full collection they are given back."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc and glibc's malloc_trim")
    blocks = [bytearray(16384) for _ in range(2000)]  # 32 MB of blocks below the size glibc maps apart
    del blocks[::2]  # 16 MB of holes between blocks still in use: nothing for free() to hand back
    before = resident_mb()
    younger_collections(idle_gc.FULL_COLLECTION_EVERY)
    if not idle_gc.collect_if_due(idle=True):
        pytest.fail("the due collection did not run")
    if idle_gc.return_free_memory() is False:
        pytest.skip("no malloc_trim here (not glibc)")
    assert before - resident_mb() > 8, f"{before:.0f} MB -> {resident_mb():.0f} MB"
    assert len(blocks) == 1000


def test_a_large_reply_makes_a_full_collection_due_at_the_next_idle_moment():
    """After a huge reply its garbage and freed memory go at the next idle moment, however few younger
    collections ran since the last full one (a forced one may have run just before it ended)."""
    wakes: list[int] = []
    callback = idle_gc.when_due(lambda: wakes.append(1))
    try:
        younger_collections(1)
        idle_gc.after_output(idle_gc.LARGE_OUTPUT - 1)
        gc.collect(0)
        assert wakes == [] and not idle_gc.collect_if_due(idle=True)  # an ordinary reply: nothing due
        idle_gc.after_output(idle_gc.LARGE_OUTPUT)
        gc.collect(0)
        assert wakes == [1]  # the sleeping check is woken
        assert not idle_gc.collect_if_due(idle=False)  # still streaming or typing: not yet
        assert idle_gc.collect_if_due(idle=True) and gc.get_count()[2] == 0
        assert not idle_gc.collect_if_due(idle=True)  # once
    finally:
        gc.callbacks.remove(callback)


LARGE_BLOCK_CHECK = """
import ctypes, sys
import app.runtime.idle_gc as idle_gc

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                      "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "set" and not idle_gc.map_large_blocks_apart():
    sys.exit(3)
larger = bytearray(8 * 1024 * 1024)
del larger  # freed: glibc's own threshold is now 8 MB
before = libc.mallinfo2().hblkhd  # bytes of blocks in mappings of their own
block = bytearray(1024 * 1024)
print(libc.mallinfo2().hblkhd - before)
"""


def test_a_large_block_is_mapped_apart_even_after_a_larger_one_was_freed():
    """glibc raises its threshold to each mapped block freed, and then serves big blocks from the heap,
    where they leave holes once freed. With the threshold set, a large block stays apart.
    (In a fresh interpreter: a heap that earlier tests left with free room would serve the block.)"""
    import subprocess

    if not sys.platform.startswith("linux"):
        pytest.skip("glibc's allocator")

    def mapped(mode: str) -> int:
        run = subprocess.run([sys.executable, "-c", LARGE_BLOCK_CHECK, mode], capture_output=True, text=True)
        if run.returncode == 3 or "mallinfo2" in run.stderr:
            pytest.skip("not glibc, or glibc before 2.33 (no mallinfo2)")
        assert run.returncode == 0, run.stderr
        return int(run.stdout)

    assert mapped("default") < 1024 * 1024  # glibc's own way: from the heap
    assert mapped("set") >= 1024 * 1024
