"""Acceptance: two real `whimbrel` processes, separate data dirs, one PostgreSQL store.

A streams a slow reply; B opens the same workstream and follows it read-only, each save of A's
draft shown on B's screen within a second (LISTEN/NOTIFY); A is killed with SIGKILL; B takes over
and runs a turn of its own; the store's rows name both instances (`who`, from each one's
`[team] name`). A streams for about 15 s, not the issue's minute: the follow latency is checked at
every save A makes in that time. Every wait is for a condition.
"""

from __future__ import annotations

import os
import re
import statistics
import time
from pathlib import Path

import pytest

from app.storage.store import Store
from tests.e2e.installed import NEEDS_WHIMBREL, places
from tests.e2e.pty_app import PtyApp, strip_ansi
from tests.e2e.test_acceptance import whimbrel_argv
from tests.fake_llm.script import SlowReply, TextReply

WORDS = [f"w{n:04d}" for n in range(1, 151)]  # ~15 s at ten words a second
FOLLOW_WITHIN = 1.0  # seconds from a save seen in the store to the word on B's screen

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180), NEEDS_WHIMBREL]


def instance(tmp_path: Path, name: str, base_url: str, workdir: Path, url: str, *extra: str) -> PtyApp:
    """A whimbrel with its own data dir and config (`[team] name = name`) on the store at `url`."""
    config = tmp_path / f"{name}.toml"
    config.write_text(f'[team]\nname = "{name}"\n')
    env = dict(os.environ, WHIMBREL_CONFIG=str(config))
    return PtyApp(whimbrel_argv(base_url, workdir, tmp_path / f"data-{name}", "--db-url", url, *extra), env=env)


def pump_all(apps: list[PtyApp], until, timeout: float, what: str) -> None:
    """Read every screen (none may block on a full pty) until `until()` holds."""
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            tails = "\n\n".join(a.screen_text[-1200:] for a in apps)
            raise TimeoutError(f"{what} not within {timeout}s; screens:\n{tails}")
        for app in apps:
            app.pump(0.02)


def held_by(store: Store, pid: int) -> list[str]:
    return [lease.workstream_id for lease in store.live_leases() if lease.owner.pid == pid]


def draft_text(store: Store, ws: str) -> str:
    """The text of the workstream's assistant reply as saved so far ("" before the first save)."""
    replies = [m for m in store.load_messages(ws) if m.role == "assistant"]
    return replies[-1].content if replies else ""


def test_b_follows_a_live_then_takes_over_after_a_sigkill(fake_openai, pg_server, tmp_path: Path) -> None:
    url = pg_server.database()
    workdir, _ = places(tmp_path)
    fake_openai.queue(SlowReply(" ".join(WORDS), delay=0.1, chunk_size=6))
    a = instance(tmp_path, "alice", fake_openai.base_url, workdir, url)
    b = None
    store = Store(url)
    try:
        a.wait_for("Ask for work", timeout=60)
        a.wait_for("◆ m ", timeout=60)
        a.send("plan the schema please\r")
        pump_all([a], lambda: held_by(store, a.process.pid) and draft_text(store, held_by(store, a.process.pid)[0]),
                 60, "A holding a workstream and saving its streaming reply")
        ws = held_by(store, a.process.pid)[0]

        b = instance(tmp_path, "bob", fake_openai.base_url, workdir, url, "--resume", ws[:8])
        pump_all([a, b], lambda: "open in another window" in b.screen_text, 60, "B showing the workstream read-only")

        # Each save A makes while streaming: the newest word is on B's screen within a second.
        latencies: list[float] = []
        last = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = draft_text(store, ws)
            if text != last:
                last = text
                seen = time.monotonic()
                word = text.split()[-1]
                pump_all([a, b], lambda: word in strip_ansi(b.output[-60000:]), 10, f"B showing {word!r}")
                latencies.append(time.monotonic() - seen)
            if last.endswith(WORDS[-1]) or len(latencies) >= 5 and len(last.split()) > len(WORDS) * 2 // 3:
                break  # enough saves checked: A is killed while still streaming
            for app in (a, b):
                app.pump(0.02)
        assert len(latencies) >= 5, f"only {len(latencies)} saves seen while A streamed"
        # every save reached B's screen (within 10 s each, above); the typical one within a second. The slowest
        # also counts the test's own polling of two ptys and the store on a loaded machine, so it is printed,
        # not asserted (benchmarks/storage.py measures the follower's latency itself: p95 in milliseconds).
        assert statistics.median(latencies) <= FOLLOW_WITHIN, f"B lagged behind A's saves: {sorted(latencies)}"
        assert fake_openai.completed == 0, "A was still streaming while B followed"
        print(f"B followed {len(latencies)} saves of A's stream; slowest {max(latencies) * 1000:.0f} ms")

        a.kill()  # SIGKILL: no clean-up, the lease is left behind
        offered = re.compile(r"has\s*closed\s*or\s*stopped|Take\s*it\s*over\s*to\s*continue")
        pump_all([b], lambda: offered.search(strip_ansi(b.output[-20000:])), 30, "B offering the take-over")
        fake_openai.queue(TextReply("Bob carries the plan on."))
        b.send("\r")  # the take-over button has the keyboard once offered
        pump_all([b], lambda: held_by(store, b.process.pid) == [ws], 30, "B holding the workstream")
        b.send("carry on from there\r")
        pump_all([b], lambda: draft_text(store, ws) == "Bob carries the plan on."
                 and "Bob carries the plan on." in b.screen_text, 30, "B's own turn answered and shown")
        b.send("\x11")  # Ctrl+Q
        assert b.wait_exit(timeout=30) == 0, b.screen_text[-1500:]

        messages = store.load_messages(ws)
        rows = [(m.role, m.content[:20]) for m in messages]
        assert [r[0] for r in rows] == ["user", "assistant", "user", "assistant"], rows
        assert messages[0].content == "plan the schema please" and messages[2].content == "carry on from there"
        assert messages[1].interrupted and messages[1].content.startswith("w0001 w0002"), \
            "A's reply, cut by the kill, is kept as far as it was saved and marked interrupted"
        with store.engine.connect() as conn:
            who = [tuple(r) for r in conn.execute(
                "SELECT role, who FROM messages WHERE workstream_id = ? ORDER BY seq", (ws,))]
        assert who == [("user", "alice"), ("assistant", "alice"), ("user", "bob"), ("assistant", "bob")], who
        assert store.lease(ws) is None, "B's quit gives the lease back"
    finally:
        a.close()
        if b is not None:
            b.close()
        store.close()
