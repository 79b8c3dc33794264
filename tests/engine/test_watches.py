"""watch end to end: the tool writes rows, the runner polls a real command, a firing watch starts
a turn in its workstream (stored), and watches survive a restart (a new store on the same file)."""

from __future__ import annotations

import asyncio
import json
import time

from app.engine.watches import WatchRunner
from app.storage import watch_store
from app.storage.async_store import AsyncStore
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply, ToolCallReply


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def until(condition, timeout: float = 60.0) -> None:
    """Wait for `condition()` (checked every 50 ms); fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.05)


def watch_call(call_id: str = "w1", **args) -> ToolCallReply:
    return ToolCallReply([("watch", json.dumps(args), call_id)])


async def test_a_file_size_watch_wakes_the_workstream_even_after_a_restart(fake_openai, tmp_path):
    """Acceptance 3: watch a file's size every 10 s until it changes."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "build.log").write_text("start\n")
    fake_openai.queue(watch_call(command="stat -c %s build.log", poll_every="10s", name="log-size"),
                      TextReply("I will tell you when it changes."))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("tell me when build.log grows")
    assert "Watching `stat -c %s build.log` every 10s as 'log-size'" in session.messages[2].content
    workstream_id = session.workstream_id
    await shutdown(session, store)  # Whimbrel quits …

    store = await AsyncStore.open(tmp_path / "whimbrel.db")  # … and starts again
    recorder = Recorder()
    session, _unused = await make_session(fake_openai, workspace, tmp_path, recorder, workstream_id=workstream_id,
                                          messages=await store.load_messages(workstream_id))
    await _unused.aclose()
    session.store = store
    clock = Clock()

    async def fire(target: str, text: str) -> None:
        assert target == workstream_id
        await session.run_turn(text)

    runner = WatchRunner(store, fire, workspace, clock=clock)
    clock.now = 2e9  # the first poll is due at once: it is the baseline
    assert await runner.poll_once() == 0
    assert await runner.poll_once() == 0  # not due again until 10 s later
    (workspace / "build.log").write_text("start\nmore output\n")
    clock.now += 10
    fake_openai.queue(TextReply("build.log grew to 18 bytes."))
    assert await runner.poll_once() == 1
    stored = await store.load_messages(workstream_id)
    woke = [m.content for m in stored if m.role == "user"][-1]
    assert woke.startswith("[watch 'log-size' saw a change] `stat -c %s build.log` exited 0") and "18" in woke
    assert stored[-1].content == "build.log grew to 18 bytes."
    assert await store.run(watch_store.active, store.store, workstream_id) == []
    await shutdown(session, store)


async def test_stop_on_list_cancel_and_limits(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    calls = [("watch", json.dumps({"command": f"echo {i}", "name": f"w{i}", "poll_every": "1m"}), f"c{i}")
             for i in range(6)]
    fake_openai.queue(ToolCallReply(calls), TextReply("ok"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("six watches")
    results = [m for m in session.messages if m.role == "tool"]
    assert sum(not m.is_error for m in results) == 5
    assert any("already has 5 active watches" in m.content for m in results if m.is_error)

    bad = [("watch", json.dumps({"command": "true", "poll_every": "2s"}), "b1"),
           ("watch", json.dumps({"command": "true", "stop_on": "__import__('os')"}), "b2"),
           ("watch", json.dumps({"action": "cancel", "name": "w0"}), "b3")]
    fake_openai.queue(ToolCallReply(bad), TextReply("ok"),
                      ToolCallReply([("watch", json.dumps({"action": "list"}), "b4")]), TextReply("ok"))
    await session.run_turn("more")
    await session.run_turn("list them")
    texts = {m.tool_call_id: m.content for m in session.messages if m.role == "tool"}
    assert "between 10s and 24h" in texts["b1"] and "not '__import__'" in texts["b2"]
    assert texts["b3"] == "Cancelled watch w0." and "- w1: `echo 1` every 60s" in texts["b4"] and "w0" not in texts["b4"]
    await shutdown(session, store)


async def test_stop_on_fires_only_when_it_holds(tmp_path):
    store = await AsyncStore.open(tmp_path / "w.db")
    workstream_id = await store.create_workstream(title="t", model="m", workdir=str(tmp_path))
    (tmp_path / "state.json").write_text('{"state": "OPEN"}')
    await store.run(watch_store.create, store.store, workstream_id, name="pr", command="cat state.json",
                    interval=10, stop_on='data["state"] == "MERGED"', max_polls=100, now=0)
    fired: list[str] = []

    async def fire(_target: str, text: str) -> None:
        fired.append(text)

    clock = Clock()
    runner = WatchRunner(store, fire, tmp_path, clock=clock)
    assert await runner.poll_once() == 0
    (tmp_path / "state.json").write_text('{"state": "MERGED"}')
    clock.now += 10
    assert await runner.poll_once() == 1 and fired[0].startswith("[watch 'pr' fired]")
    await store.aclose()


async def test_the_runner_sleeps_until_the_next_due_watch_and_a_new_watch_wakes_it(fake_openai, tmp_path):
    """Idle CPU: an idle runner reads the store once a `tick` (an hour here), yet a stored
    watch is polled when it falls due and one the tool creates is polled at once."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    polled: list[str] = []

    async def fire(_target: str, text: str) -> None:
        polled.append(text)

    await store.run(watch_store.create, store.store, session.workstream_id, name="soon", command="echo soon",
                    interval=10, stop_on="True", max_polls=100, now=time.time() + 0.5)  # due in half a second
    runner = WatchRunner(store, fire, workspace, tick=3600)
    runner.start()
    try:
        await until(lambda: polled)
        assert polled[0].startswith("[watch 'soon' fired] `echo soon`")  # it did not sleep an hour

        fake_openai.queue(watch_call(command="echo now", poll_every="1h", stop_on="True", name="now"),
                          TextReply("Watching."))
        await session.run_turn("watch it")  # the tool's new row wakes the sleeping runner
        await until(lambda: len(polled) == 2)
        assert polled[1].startswith("[watch 'now' fired] `echo now`")
    finally:
        await runner.stop()
        await shutdown(session, store)
