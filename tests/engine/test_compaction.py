"""Compaction: what the summarizer is given, what survives, what the model sees afterwards."""

from __future__ import annotations

from app.engine import events as ev
from app.engine.compaction import SUMMARY_MARKER, apply_compaction, should_compact, split_index
from app.vocabulary.messages import Message, ToolCall
from tests.engine.harness import Recorder
from tests.engine.models_harness import close, models_session, openai_model, registry_for
from tests.fake_llm.script import TextReply, ToolCallReply

SUMMARY = ("## Goal\nRename parse_cfg.\n## Decisions\nKeep the old name as an alias.\n"
           "## Files touched\n- src/conf/loader.py\n## Identifiers\nparse_cfg, load_config_v2, ERR_E1042\n"
           "## Open tasks\n- update docs/usage.md\n## User preferences\nNo new dependencies.")


def test_threshold_and_split_point() -> None:
    assert should_compact(8000, 10_000, 80) and not should_compact(7999, 10_000, 80)
    assert not should_compact(10**6, None, 80)
    msgs = [Message(role="user", content="a"), Message(role="assistant", content="b"),
            Message(role="user", content="c")]
    assert split_index(msgs) == 2
    assert split_index(msgs[:1]) == 0


async def test_auto_compaction_keeps_facts_and_drops_old_context(fake_openai, tmp_path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "src" / "conf").mkdir(parents=True)
    (workspace / "src" / "conf" / "loader.py").write_text("def parse_cfg(path):\n    raise ValueError('ERR_E1042')\n")
    fake_openai.queue(
        ToolCallReply(calls=[("read_file", '{"path": "src/conf/loader.py"}', "c1")], usage=(2000, 20)),
        TextReply("parse_cfg raises ERR_E1042; I suggest load_config_v2.", usage=(8500, 30)),
        TextReply(SUMMARY, usage=(3000, 200)),  # the summary request
        TextReply("Docs next.", usage=(900, 5)),
    )
    models = registry_for({"local": openai_model(fake_openai, "local", context_window=10_000)})
    rec = Recorder()
    session, store = await models_session(models, workspace, tmp_path, rec)
    await session.run_turn("Why does parse_cfg fail? Keep the old name. No new dependencies.")
    assert session.tool_context.read_paths  # the file was read
    await session.run_turn("ok, what next?")

    summarize = fake_openai.requests[2]
    assert "## Files touched" in summarize["messages"][0]["content"]
    transcript = summarize["messages"][1]["content"]
    for fact in ("parse_cfg", "ERR_E1042", "src/conf/loader.py", "load_config_v2", "No new dependencies"):
        assert fact in transcript  # exact identifiers reach the summarizer
    after = fake_openai.requests[3]["messages"]
    assert after[1]["content"].startswith(SUMMARY_MARKER) and "ERR_E1042" in after[1]["content"]
    assert after[2] == {"role": "user", "content": "ok, what next?"}
    assert len(after) == 3 and all("tool_calls" not in m for m in after)  # old turns are gone
    done = rec.of(ev.CompactionDone)[0]
    assert done.auto and done.summary == SUMMARY and done.tokens_before == 8500
    assert not session.tool_context.read_paths  # files must be re-read before editing

    stored = await store.load_messages(session.workstream_id)
    assert len(stored) == 6  # history stays in storage (user, call, result, answer, user, answer)
    row = await store.latest_compaction(session.workstream_id)
    resumed = apply_compaction(stored, row.summary, row.last_message_id)
    assert [m.content for m in resumed[1:]] == ["ok, what next?", "Docs next."]
    await close(models, store)


async def test_manual_compact_with_focus(fake_openai, tmp_path) -> None:
    (tmp_path / "ws").mkdir()
    fake_openai.queue(TextReply("first answer"), TextReply("second answer"), TextReply("short summary"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    rec = Recorder()
    session, store = await models_session(models, tmp_path / "ws", tmp_path, rec)
    await session.run_turn("one")
    await session.run_turn("two")
    summary = await session.compact("the API design")
    assert summary == "short summary"
    assert "Pay particular attention to: the API design" in fake_openai.requests[2]["messages"][1]["content"]
    context = session.model_messages()[1:]  # after the system prompt
    assert [m.role for m in context] == ["user", "user", "assistant"]
    assert context[0].content.startswith(SUMMARY_MARKER) and context[1].content == "two"
    assert len(session.messages) == 4  # the transcript keeps showing the whole history
    assert rec.of(ev.CompactionDone)[0].focus == "the API design"
    await close(models, store)


async def test_nothing_to_compact(fake_openai, tmp_path) -> None:
    (tmp_path / "ws").mkdir()
    models = registry_for({"local": openai_model(fake_openai, "local")})
    rec = Recorder()
    session, store = await models_session(models, tmp_path / "ws", tmp_path, rec)
    assert await session.compact() is None
    assert rec.of(ev.Notice)[-1].text == "Nothing to compact yet."
    assert fake_openai.requests == []
    await close(models, store)


def test_resume_applies_the_latest_compaction() -> None:
    msgs = [Message(role="user", content="old", db_id=1),
            Message(role="assistant", tool_calls=[ToolCall("c", "bash", "{}")], db_id=2),
            Message(role="tool", content="out", tool_call_id="c", db_id=4),
            Message(role="user", content="new", db_id=5)]
    resumed = apply_compaction(msgs, "S", 4)
    assert resumed[0].content.startswith(SUMMARY_MARKER) and [m.content for m in resumed[1:]] == ["new"]
