"""Snapshots of the window while the team store does not answer: the banner counting down to the next
try, the banner while a try runs, and a prompt refused meanwhile (still in the prompt box, a notice
saying why). The link is driven as the store drives it (app/storage/reachability.py), with a fixed clock
and a try that never ends, so each frame is steady; the real outage is tests/ui/test_store_unreachable.py."""

from __future__ import annotations

import asyncio

from app.storage.reachability import StoreUnavailable
from tests.ui.helpers import booted, focused_view, make_app, wait_for
from widgets.prompt import PromptInput
from widgets.store_banner import StoreBanner

SIZE = (110, 24)
WHY = StoreUnavailable("cannot reach the PostgreSQL store postgresql://alice:***@db.example.com:5432/whimbrel: "
                       "connection refused")


async def _lose_the_store(pilot, *, seconds_left: int | None) -> None:
    """The link loses the store; its next try `seconds_left` away (None: a try is running now)."""
    await booted(pilot)
    for prompt in pilot.app.query(PromptInput):
        prompt.cursor_blink = False
    link = pilot.app.store.link
    never = asyncio.Event()
    link._probe = never.wait  # a try that never ends: the frame does not change under the snapshot
    link.backoff = (600.0, 600.0)
    link.lost(WHY)
    await wait_for(pilot, lambda: link.next_try is not None, message="the next try scheduled")
    if seconds_left is None:
        link.retry_now()
        await wait_for(pilot, lambda: link.next_try is None, message="a try running")
    else:
        due = link.next_try
        link._clock = lambda: due - seconds_left
    banner = pilot.app.main_screen.query_one(StoreBanner)
    banner.show_link(link)
    await wait_for(pilot, lambda: banner.display, message="the banner shown")
    await pilot.pause(0.3)


def test_store_unreachable_counting_down(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await _lose_the_store(pilot, seconds_left=4)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_store_unreachable_retrying_now(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await _lose_the_store(pilot, seconds_left=None)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_prompt_kept_while_the_store_is_unreachable(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await _lose_the_store(pilot, seconds_left=8)
        prompt = focused_view(pilot.app).prompt
        prompt.insert("Summarise the release notes for the team.")
        await pilot.press("enter")
        await wait_for(pilot, lambda: pilot.app._notifications, message="the notice")
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)
