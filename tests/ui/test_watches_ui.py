"""Watches in the app: a watch stored by an earlier run fires after a restart and wakes its
workstream (a turn runs there); /watches lists and cancels."""

from __future__ import annotations

from app.tui.screens.watches import WatchesScreen
from app.storage import watch_store
from app.storage.store import Store
from tests.fake_llm.script import TextReply
from tests.ui.helpers import make_app, screen_is, screen_text, submit, wait_for


def stored_watch(tmp_path, **overrides) -> tuple[str, str]:
    """A workstream and an active watch in the store, as an earlier run of Whimbrel left them."""
    store = Store(tmp_path / "data" / "whimbrel.db")
    workstream_id = store.create_workstream(title="watching the log", model="fake-model", workdir=str(tmp_path / "ws"))
    fields = dict(name="log-size", command="stat -c %s build.log", interval=10.0, stop_on=None, max_polls=100, now=0)
    fields.update(overrides)
    watch_id = watch_store.create(store, workstream_id, **fields)
    watch_store.record_poll(store, watch_id, "6\n", next_at=0)  # the baseline: due now
    store.close()
    return workstream_id, watch_id


async def test_a_watch_from_the_last_run_wakes_its_workstream(fake_openai, tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "build.log").write_text("start\nmore\n")  # 11 bytes: changed since the baseline
    workstream_id, _watch = stored_watch(tmp_path)
    fake_openai.queue(TextReply("The log grew to 11 bytes."))
    app = make_app(tmp_path, fake_openai.base_url, resume=workstream_id)
    app.watch_tick = 0.1
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "The log grew to 11 bytes." in screen_text(app), timeout=30,
                       message="the watch's turn")
        assert "[watch 'log-size' saw a change]" in screen_text(app)
    [poll] = [r for r in audit_rows(tmp_path) if r.tool == "watch"]  # each poll is audited in its workstream
    assert (poll.workstream_id, poll.decision, poll.status) == (workstream_id, "allowed", "done")
    assert poll.decided_by.startswith("watch: runs as its approved creation allowed (ask mode: no rule allows")
    assert '"action": "poll"' in poll.arguments and "stat -c %s build.log" in poll.arguments
    assert poll.duration_ms is not None and poll.sandbox != "n/a"


async def test_the_watches_screen_lists_and_cancels(fake_openai, tmp_path):
    (tmp_path / "ws").mkdir()
    workstream_id, watch_id = stored_watch(tmp_path, interval=3600.0, stop_on='"DONE" in output', now=1e12)
    app = make_app(tmp_path, fake_openai.base_url, resume=workstream_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "/watches")
        await wait_for(pilot, lambda: screen_is(app, WatchesScreen), message="watches screen")
        table = app.screen.query_one("#watch-table")
        await wait_for(pilot, lambda: table.row_count == 1, message="one row")
        cells = [str(c) for c in table.get_row_at(0)]
        assert cells[1:5] == ["log-size", "stat -c %s build.log", "1h", '"DONE" in output']
        await pilot.press("c")
        await wait_for(pilot, lambda: "Cancelled log-size." in screen_text(app))
        assert await app.store.run(watch_store.active, app.store.store) == []


async def test_each_poll_goes_through_the_gate_and_a_denied_command_stops_the_watch(fake_openai, tmp_path):
    """A deny rule written since the watch was created: its next poll is refused (the command never
    runs), the watch stops, and its workstream is told why."""
    from app.settings.config import load_config

    (tmp_path / "ws").mkdir()
    marker = tmp_path / "ws" / "ran.txt"
    workstream_id, _watch = stored_watch(tmp_path, command="touch ran.txt && stat -c %s build.log")
    config = tmp_path / "config.toml"
    config.write_text('[policy]\ndeny = ["bash(touch *)"]\n')
    fake_openai.queue(TextReply("The watch was stopped."))
    app = make_app(tmp_path, fake_openai.base_url, resume=workstream_id, config=load_config(config))
    app.options.config_path = config  # the permission setup reads its rules from there
    app.watch_tick = 0.1
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "The watch was stopped." in screen_text(app), timeout=30,
                       message="the refusal's turn")
        assert "[watch 'log-size' stopped]" in screen_text(app) and "refuses it" in screen_text(app)
        assert await app.store.run(watch_store.active, app.store.store) == []
    assert not marker.exists()
    [poll] = [r for r in audit_rows(tmp_path) if r.tool == "watch"]
    assert (poll.workstream_id, poll.decision, poll.status) == (workstream_id, "refused", "refused")
    assert poll.decided_by.startswith("rule deny bash(touch *) (user, ")


async def test_a_poll_runs_in_the_workstreams_worktree(fake_openai, tmp_path):
    """The poll runs where its workstream's tools act: here a worktree, not the main tree."""
    from app.checkpoints import records
    from app.checkpoints.worktree import create
    from tests.checkpoints.harness import git_init

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "build.log").write_text("main tree\n")
    git_init(workspace)
    workstream_id, _watch = stored_watch(tmp_path, command="pwd")
    tree = create(tmp_path / "data", workspace, workstream_id[:12])
    store = Store(tmp_path / "data" / "whimbrel.db")
    store.set_config(workstream_id, records.WORKTREE_KEY, tree.as_dict())
    store.close()
    fake_openai.queue(TextReply("Seen."))
    app = make_app(tmp_path, fake_openai.base_url, resume=workstream_id)
    app.watch_tick = 0.1
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: "Seen." in screen_text(app), timeout=30, message="the watch's turn")
    woke = [m.content for m in await_messages(tmp_path, workstream_id) if m.role == "user"][-1]
    assert tree.path in woke


def audit_rows(tmp_path):
    from app.permissions import audit

    store = Store(tmp_path / "data" / "whimbrel.db")
    try:
        return audit.query(store.engine)
    finally:
        store.close()


def await_messages(tmp_path, workstream_id):
    store = Store(tmp_path / "data" / "whimbrel.db")
    try:
        return store.load_messages(workstream_id)
    finally:
        store.close()
