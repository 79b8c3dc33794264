"""A skill's settings apply to the workstream it starts: the model and temperature reach the request,
the permission mode governs its tools (and is kept for resume), the token budget stops the next request
once spent; a setting that cannot apply is said, and a resumed skill workstream gets them again."""

from __future__ import annotations

import json

from app.engine import events as ev
from app.engine.memory_context import attach_memory
from app.engine.skill_settings import apply_skill_settings
from app.memory.service import MemoryService
from tests.engine.harness import Recorder
from tests.engine.models_harness import close, models_session, openai_model, registry_for
from tests.fake_llm.script import TextReply, ToolCallReply


def _models(fake_openai):
    return registry_for({"local": openai_model(fake_openai, "local", "small-model"),
                         "big": openai_model(fake_openai, "big", "big-model", temperature=1.0)})


async def test_model_temperature_and_mode_apply_and_other_workstreams_keep_theirs(fake_openai, tmp_path):
    models = _models(fake_openai)
    recorder = Recorder()
    session, store = await models_session(models, tmp_path / "ws", tmp_path / "data", recorder)
    (tmp_path / "ws").mkdir()
    applied, refused = await apply_skill_settings(session, {"model": "big", "temperature": 0.2,
                                                            "permission_mode": "plan"})
    assert applied == ["model=big", "temperature=0.2", "permission_mode=plan"] and refused == []
    write = json.dumps({"path": "notes.txt", "content": "hello"})
    fake_openai.queue(ToolCallReply(calls=[("write_file", write, "c1")]), TextReply("done"), TextReply("other"))
    await session.run_turn("write a note")
    request = fake_openai.requests[0]
    assert (request["model"], request["temperature"]) == ("big-model", 0.2)
    assert not (tmp_path / "ws" / "notes.txt").exists()  # plan mode refused the write
    assert "refused" in [m for m in fake_openai.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert (await store.get_config(session.workstream_id))["policy_mode"] == "plan"
    assert recorder.of(ev.ModeChanged)[-1].mode == "plan"

    other = (await models_session(models, tmp_path / "ws", tmp_path / "data2", Recorder()))
    await other[0].set_model("big")
    await other[0].run_turn("hello")
    assert fake_openai.requests[2]["temperature"] == 1.0  # the shared provider keeps the configured one
    await other[1].aclose()
    await close(models, store)


async def test_a_setting_that_cannot_apply_is_said(fake_openai, tmp_path):
    models = _models(fake_openai)
    session, store = await models_session(models, tmp_path, tmp_path / "data", Recorder())
    applied, refused = await apply_skill_settings(session, {"model": "nosuch", "token_budget": 500})
    assert applied == ["token_budget=500"]
    assert refused == ["model=nosuch (no such model in [models] of config.toml)"]
    await close(models, store)


async def test_the_token_budget_stops_the_next_request_once_spent(fake_openai, tmp_path):
    models = _models(fake_openai)
    recorder = Recorder()
    session, store = await models_session(models, tmp_path, tmp_path / "data", recorder)
    await apply_skill_settings(session, {"token_budget": 1000})
    listing = json.dumps({"path": "missing.txt"})
    fake_openai.queue(ToolCallReply(calls=[("read_file", listing, "c1")], usage=(900, 200)), TextReply("never sent"))
    await session.run_turn("look around")
    assert len(fake_openai.requests) == 1  # the tool ran, the follow-up request was not sent
    notices = [n.text for n in recorder.of(ev.Notice)]
    assert any("token budget (1,000 tokens, from its skill) is spent (1,100 used)" in n for n in notices)
    await session.run_turn("and now?")
    assert len(fake_openai.requests) == 1
    await close(models, store)


async def test_a_resumed_skill_workstream_gets_its_temperature_and_budget_again(fake_openai, tmp_path):
    models = _models(fake_openai)
    session, store = await models_session(models, tmp_path, tmp_path / "data", Recorder())
    service = MemoryService(store)
    attach_memory(session, service, tmp_path / "config")
    await session.memory_context.start_skill(session, {"name": "careful", "version": "abc", "path": "x",
                                                        "values": {}, "prompt": "Be careful.",
                                                        "settings": {"temperature": 0.1, "token_budget": 900}})
    await store.add_usage(session.workstream_id, model="big-model", prompt_tokens=850, completion_tokens=100)
    resumed = type(session)(workstream_id=session.workstream_id, provider=None, models=models,
                            registry=session.registry, tool_context=session.tool_context, emit=Recorder(),
                            store=store, max_retries=1, retry_base_delay=0.0)
    attach_memory(resumed, service, tmp_path / "config")
    recorder = resumed._emit
    fake_openai.queue(TextReply("ok"))
    await resumed.run_turn("hi")
    assert fake_openai.requests == []  # 950 tokens were spent before the resume: over its 900
    assert any("token budget (900 tokens" in n.text for n in recorder.of(ev.Notice))
    resumed.token_budget = None  # the temperature came back too
    await resumed.run_turn("hi")
    assert fake_openai.requests[0]["temperature"] == 0.1
    await close(models, store)
