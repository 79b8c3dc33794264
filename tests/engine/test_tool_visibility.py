"""Through the real turn loop: the tools sent to the model are exactly those a call may use."""

from __future__ import annotations

import json

import pytest

from app.engine import events as ev
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply, ToolCallReply
from tools.visibility import ToolScope


async def test_a_tool_the_model_was_not_shown_is_refused(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    args = json.dumps({"path": "pwned.txt", "content": "x"})
    fake_openai.queue(ToolCallReply([("write_file", args, "call_1")]), TextReply("ok"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    session.tool_scope = ToolScope(allowed=frozenset({"read_file", "search"}))
    await session.run_turn("write something")
    sent = [t["function"]["name"] for t in fake_openai.requests[0]["tools"]]
    assert sent == ["read_file", "search"]
    result = recorder.of(ev.ToolResultReady)[0]
    assert result.is_error and "Unknown tool 'write_file'" in result.output
    assert not (workspace / "pwned.txt").exists()
    assert not recorder.approvals  # refused before the approval step: nothing to approve
    await shutdown(session, store)


async def test_web_fetch_question_is_answered_by_the_workstream_model(fake_openai, tmp_path):
    """Acceptance 1: the page is read by the model in a side request; only the answer joins the chat."""
    from tests.tools.web_site import LocalSite
    from tools.address_policy import AddressPolicy
    from tools.pinned_fetch import WebAccess

    workspace = tmp_path / "ws"
    workspace.mkdir()
    with LocalSite() as site:
        args = json.dumps({"url": site.url("/docs"), "question": "How far does the whimbrel fly?"})
        fake_openai.queue(ToolCallReply([("web_fetch", args, "call_1")]),
                          TextReply("About 5,000 km without stopping.", usage=(300, 9)),
                          TextReply("The page says it flies 5,000 km non-stop."))
        recorder = Recorder()
        session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
        session.tool_context.web = WebAccess(policy=AddressPolicy(allow_networks=("127.0.0.1/32",)))
        await session.run_turn("Summarise the local docs page")
    side_request = fake_openai.requests[1]
    assert "5,000 km" in side_request["messages"][-1]["content"] and not side_request.get("tools")
    result = recorder.of(ev.ToolResultReady)[0]
    assert not result.is_error and result.output.endswith("About 5,000 km without stopping.")
    assert "Numenius" not in fake_openai.requests[2]["messages"][-1]["content"]
    rows = await store.load_messages(session.workstream_id)
    assert [m.role for m in rows] == ["user", "assistant", "tool", "assistant"]
    await shutdown(session, store)


async def test_web_fetch_question_goes_to_the_agent_model_when_one_is_set(fake_openai, tmp_path):
    """[model] agent_model reads the page (a cheaper model, say); the conversation stays on its own."""
    from app.providers.models import ModelRegistry
    from tests.engine.models_harness import close, models_session, openai_model
    from tests.tools.web_site import LocalSite
    from tools.address_policy import AddressPolicy
    from tools.pinned_fetch import WebAccess

    workspace = tmp_path / "ws"
    workspace.mkdir()
    models = ModelRegistry({"main": openai_model(fake_openai, "main", "big-model"),
                            "cheap": openai_model(fake_openai, "cheap", "small-model")},
                           default="main", agent_model="cheap")
    with LocalSite() as site:
        args = json.dumps({"url": site.url("/docs"), "question": "How far does the whimbrel fly?"})
        fake_openai.queue(ToolCallReply([("web_fetch", args, "call_1")]), TextReply("About 5,000 km."),
                          TextReply("5,000 km."))
        recorder = Recorder()
        session, store = await models_session(models, workspace, tmp_path, recorder, model_alias="main")
        session.tool_context.web = WebAccess(policy=AddressPolicy(allow_networks=("127.0.0.1/32",)))
        await session.run_turn("Summarise the local docs page")
    assert [r["model"] for r in fake_openai.requests] == ["big-model", "small-model", "big-model"]
    assert recorder.of(ev.ToolResultReady)[0].output.endswith("About 5,000 km.")
    await close(models, store)


async def test_with_a_config_mcp_tools_past_the_threshold_are_deferred_until_found(fake_openai, tmp_path):
    from app.settings.config import load_config
    from app.engine.tool_setup import configure_tools
    from tests.tools.test_visibility import mcp_spec

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "config.toml").write_text("")
    fake_openai.queue(ToolCallReply([("tool_search", json.dumps({"query": "weather forecast city"}), "s1")]),
                      ToolCallReply([("mcp__wx__forecast", json.dumps({"city": "Oslo"}), "f1")]), TextReply("Rain."))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    for i in range(20):
        session.registry.register(mcp_spec(f"mcp__pad__tool_{i}", f"padding tool {i}"))
    session.registry.register(mcp_spec("mcp__wx__forecast", "Weather forecast for a city", {"city": {"type": "string"}}))
    configure_tools(session, load_config(tmp_path / "config.toml"))
    await session.run_turn("weather in Oslo?")
    first = [t["function"]["name"] for t in fake_openai.requests[0]["tools"]]
    assert "tool_search" in first and not any(n.startswith("mcp__") for n in first)
    second = [t["function"]["name"] for t in fake_openai.requests[1]["tools"]]
    assert "mcp__wx__forecast" in second and "mcp__pad__tool_0" not in second
    results = recorder.of(ev.ToolResultReady)
    assert results[-1].output == 'mcp__wx__forecast ran with {"city": "Oslo"}' and not results[-1].is_error
    await shutdown(session, store)


@pytest.mark.parametrize("kind", ["anthropic", "openai-responses"])
async def test_a_natively_deferring_provider_loads_what_its_search_found_and_nothing_else(kind, request, tmp_path):
    """The provider's own tool search in place of our BM25 one (Anthropic's tool search tool, Responses'
    tool_search): the request carries the deferred tools marked defer_loading; the one its search loaded
    runs, a deferred one it never loaded is refused even though the model named it, and the loaded one
    goes out loaded from then on."""
    from app.settings.config import load_config
    from app.engine.tool_setup import configure_tools
    from app.providers.base import ModelSettings
    from app.providers.registry import make_provider
    from tests.fake_llm.script import ToolSearchedReply
    from tests.tools.test_visibility import mcp_spec

    server = request.getfixturevalue("fake_anthropic" if kind == "anthropic" else "fake_openai")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "config.toml").write_text("")
    server.queue(ToolSearchedReply([("mcp__wx__forecast", json.dumps({"city": "Oslo"}), "f1"),
                                    ("mcp__pad__tool_3", "{}", "p3")], query="weather forecast",
                                   found=("mcp__wx__forecast",)),
                 TextReply("Rain."))
    recorder = Recorder()
    session, store = await make_session(server, workspace, tmp_path, recorder)
    await session.provider.close()
    session.provider = make_provider(ModelSettings(model="fake-model", base_url=server.base_url, api_key="k",
                                                   provider=kind, capabilities={"native_tool_search": True}))
    for i in range(20):
        session.registry.register(mcp_spec(f"mcp__pad__tool_{i}", f"padding tool {i}"))
    session.registry.register(mcp_spec("mcp__wx__forecast", "Weather forecast for a city", {"city": {"type": "string"}}))
    configure_tools(session, load_config(tmp_path / "config.toml"))
    await session.run_turn("weather in Oslo?")

    def deferred(sent) -> dict[str, bool]:
        """name (or, for a server tool without one, "type:TYPE") -> defer_loading."""
        return {t.get("name") or f"type:{t['type']}": t.get("defer_loading", False) for t in sent["tools"]}

    first = deferred(server.requests[0])
    assert first["mcp__wx__forecast"] and first["mcp__pad__tool_3"] and not first["read_file"]
    assert ("tool_search_tool_bm25" if kind == "anthropic" else "type:tool_search") in first  # the provider's search
    assert "tool_search" not in first  # not our BM25 one
    results = {r.call_id: r for r in recorder.of(ev.ToolResultReady)}
    assert results["f1"].output == 'mcp__wx__forecast ran with {"city": "Oslo"}' and not results["f1"].is_error
    assert results["p3"].is_error and "Unknown tool 'mcp__pad__tool_3'" in results["p3"].output
    second = deferred(server.requests[1])
    assert second["mcp__wx__forecast"] is False and second["mcp__pad__tool_3"] is True
    assert [n.text for n in recorder.of(ev.Notice)] == ["The model's tool search loaded mcp__wx__forecast."]
    assert recorder.text().endswith("Rain.")
    await shutdown(session, store)
