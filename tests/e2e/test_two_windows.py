"""Acceptance: two real `whimbrel` processes on one store, both streaming for a sustained period: on one
data dir's SQLite file, and on one PostgreSQL server (a team's store: `--db-url`).

Two terminals in one project is ordinary use. Both windows start on a store whose saved tabs name
one workstream: only one of them may restore it; the other opens its own. Then each keeps a
conversation going against the fake model server for DURATION seconds, and both quit. Nothing on
either screen may be an error, each workstream's messages must come from one window only, and
every reply the server finished streaming must be stored. The loop ends on time, but pass or fail
depends only on those conditions (each wait is for a condition, with a generous timeout).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.e2e.installed import NEEDS_WHIMBREL, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.test_acceptance import whimbrel_argv
from tests.fake_llm.script import EchoReply

DURATION = 60.0  # seconds both windows keep streaming
PADDING = " and then some more words so that the reply streams for a while" * 2
ERRORS = ("Traceback", "database is locked", " failed", "Error:", "open in another window")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(DURATION + 100),
    NEEDS_WHIMBREL,
]


@dataclass
class Window:
    """One running whimbrel, the workstream it holds and how many prompts it has sent."""

    label: str
    app: PtyApp
    workstream: str = ""
    sent: int = 0

    def prompt(self, n: int) -> str:
        return f"{self.label}-{n} please answer{PADDING}"

    def send_next(self) -> None:
        self.sent += 1
        self.app.send(self.prompt(self.sent) + "\r")


def drive(windows: list[Window], done: Callable[[], bool], timeout: float, what: str,
          step: Callable[[], None] = lambda: None) -> None:
    """Read both screens (neither may block on a full pty) until `done()`, calling `step` each round."""
    deadline = time.monotonic() + timeout
    checked = 0.0
    while True:
        for window in windows:
            window.app.pump(0.02)
            assert window.app.process.poll() is None, f"{window.label} exited:\n{window.app.screen_text[-1500:]}"
        if time.monotonic() - checked >= 0.25:  # the store is read a few times a second, not every pump
            checked = time.monotonic()
            if done():
                return
            step()
        if time.monotonic() > deadline:
            tails = "\n\n".join(f"{w.label}:\n{w.app.screen_text[-1200:]}" for w in windows)
            raise TimeoutError(f"{what} not within {timeout}s; screens:\n{tails}")


def leased_by(store: Store, pid: int) -> list[str]:
    """The workstreams the process `pid` holds (a plain read: it never blocks a writer)."""
    return [lease.workstream_id for lease in store.live_leases() if lease.owner.pid == pid]


def contents(store: Store, workstream_id: str, role: str) -> list[str]:
    """The texts of `role`'s messages; a reply still streaming (saved as an interrupted draft) is left out."""
    return [m.content for m in store.load_messages(workstream_id) if m.role == role and not m.interrupted]


@pytest.mark.parametrize("where", ["sqlite", "postgresql"])
def test_two_windows_stream_into_their_own_workstreams(fake_openai, tmp_path: Path, request, where: str) -> None:
    workdir, data_dir = places(tmp_path)
    extra: tuple[str, ...] = ()
    if where == "postgresql":
        url = request.getfixturevalue("pg_server").database()
        store, extra = Store(url), ("--db-url", url)
    else:
        store = Store(data_dir / "whimbrel.db")
    earlier = store.create_workstream(title="earlier work")
    for role, text in (("user", "earlier question"), ("assistant", "earlier answer")):
        store.add_message(earlier, Message(role=role, content=text))
    store.set_app_state("tabs", [earlier])  # what the last session left open: both windows want it
    fake_openai.default_reply = EchoReply(prefix="You said: ", delay=0.02, chunk_size=3)

    windows = [Window(label, PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir, *extra)))
               for label in ("alpha", "beta")]
    try:
        drive(windows, lambda: all("◆ m " in w.app.screen_text and "Ask for work" in w.app.screen_text
                                   for w in windows), 90, "both windows ready")

        def each_holds_one() -> bool:
            for window in windows:
                held = leased_by(store, window.app.process.pid)
                window.workstream = held[0] if len(held) == 1 else ""
            return all(w.workstream for w in windows)

        drive(windows, each_holds_one, 30, "each window holding one workstream")
        assert windows[0].workstream != windows[1].workstream, "both windows took the same workstream"
        assert earlier in {w.workstream for w in windows}, "one of them restores the saved tab"

        def answered(window: Window) -> bool:
            return len([c for c in contents(store, window.workstream, "assistant")
                        if c.startswith(f"You said: {window.label}-")]) == window.sent

        def converse() -> None:
            for window in windows:
                if answered(window):
                    window.send_next()

        started = time.monotonic()
        drive(windows, lambda: time.monotonic() - started >= DURATION, DURATION + 5, "the streaming period",
              step=converse)
        drive(windows, lambda: all(answered(w) for w in windows), 60, "the last replies stored")
        assert all(w.sent >= 5 for w in windows), [w.sent for w in windows]

        for window in windows:
            screen = window.app.screen_text
            shown = [word for word in ERRORS if word in screen]
            assert not shown, f"{window.label} showed {shown}:\n{screen[-2000:]}"
        for window in windows:
            window.app.send("\x11")  # Ctrl+Q
        for window in windows:
            assert window.app.wait_exit(timeout=30) == 0, window.app.screen_text[-1500:]
    finally:
        for window in windows:
            window.app.close()

    try:
        stored_replies = 0
        for window in windows:
            expected = [window.prompt(n) for n in range(1, window.sent + 1)]
            users = contents(store, window.workstream, "user")
            replies = contents(store, window.workstream, "assistant")
            if window.workstream == earlier:
                assert users[:1] == ["earlier question"] and replies[:1] == ["earlier answer"]
                users, replies = users[1:], replies[1:]
            assert users == expected, f"{window.label}'s workstream holds other prompts (interleaved)"
            assert replies == [f"You said: {text}" for text in expected]
            stored_replies += len(replies)
        assert stored_replies == fake_openai.completed, "every reply the server finished is stored"
        print(f"two windows on {where} for {DURATION:.0f} s: " + ", ".join(f"{w.label} {w.sent} turns" for w in windows)
              + f"; {stored_replies} replies streamed and stored")
        assert all(not leased_by(store, w.app.process.pid) for w in windows), "quitting gives the leases back"
    finally:
        store.close()
