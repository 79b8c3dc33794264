"""The inspector's History tab over the store: calls survive a restart, a call another instance made
on the same store is listed, and a stored call runs again with its form filled as it was."""

from __future__ import annotations

from textual.widgets import OptionList, TabbedContent

from app.storage import mcp_call_store
from app.storage.store import Store
from tests.ui.helpers import make_app, wait_for
from tests.ui.inspector_helpers import catalog, demo_config, inspect, pick, run_and_wait, type_into, visible_text


def stored(app) -> list[dict]:
    return mcp_call_store.recent(app.store.store, "demo")


async def test_the_history_survives_a_restart_lists_another_instances_calls_and_runs_again(tmp_path):
    first = make_app(tmp_path)
    async with first.run_test(size=(130, 45)) as pilot:
        manager, screen = await inspect(pilot, demo_config(), "tools")
        tools = catalog(screen, "tools")
        form = await pick(pilot, tools, "search")
        await type_into(pilot, form, "query", "curlew")
        await run_and_wait(pilot, tools, '"query": "curlew"')
        await wait_for(pilot, lambda: len(stored(first)) == 1, message="the call stored")
        database = first.store.store.path
        await manager.stop()

    other = Store(database)  # a second instance on the same store
    try:
        mcp_call_store.record(other, "demo", kind="prompts", item="summarize", label="summarize",
                              arguments={"topic": "godwits"}, raw={"topic": "godwits"}, ok=True, elapsed_ms=2.0,
                              answer={"result": {"messages": [{"role": "user", "content": {
                                  "type": "text", "text": "Summarize godwits \x1b[2J"}}]}})
    finally:
        other.close()

    second = make_app(tmp_path)  # a restart: same data dir, new process state
    async with second.run_test(size=(130, 45)) as pilot:
        manager, screen = await inspect(pilot, demo_config(), "history")
        assert len(manager.servers["demo"].inspection.history) == 0  # nothing in memory: the list is the store's
        history = screen.query_one("#history-list", OptionList)
        await wait_for(pilot, lambda: len(history.options) == 2, message="both stored calls listed")
        listed = [str(o.prompt) for o in history.options]
        assert listed[0].startswith("✔ prompt summarize") and listed[1].startswith("✔ call search")
        await wait_for(pilot, lambda: "Summarize godwits" in visible_text(screen), message="the other's answer")
        assert "\x1b" not in visible_text(screen) and "␛[2J" in visible_text(screen)  # stored text is hostile
        history.focus()
        history.highlighted = 1
        await wait_for(pilot, lambda: '"query": "curlew"' in visible_text(screen), message="the stored arguments")
        await pilot.press("enter")  # run it again
        await wait_for(pilot, lambda: screen.query_one(TabbedContent).active == "tab-tools", message="its tab")
        await wait_for(pilot, lambda: len(stored(second)) == 3, timeout=30, message="called again and stored")
        again = stored(second)[-1]
        assert again["item"] == "search" and again["arguments"]["query"] == "curlew" and again["ok"] is True
        tools = catalog(screen, "tools")
        assert tools.form.raw_values()["query"] == "curlew"
        await manager.stop()
