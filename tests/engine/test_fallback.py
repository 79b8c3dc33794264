"""Fallback to the next alias after retries fail, the per-backend circuit breaker, /model."""

from __future__ import annotations

from app.engine import events as ev
from app.providers.models import CircuitBreaker, ModelRegistry
from tests.engine.harness import Recorder
from tests.engine.models_harness import (
    anthropic_model,
    close,
    models_session,
    openai_model,
    registry_for,
)
from tests.fake_llm.script import ErrorReply, TextReply, ToolCallReply

DEAD = "http://127.0.0.1:9/v1"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_breaker_opens_then_half_opens_after_cooldown() -> None:
    clock = Clock()
    breaker = CircuitBreaker("b", threshold=2, cooldown=10, clock=clock)
    assert breaker.allow()
    breaker.record_failure()
    assert breaker.state == "closed"
    breaker.record_failure()
    assert breaker.state == "open" and not breaker.allow() and breaker.retry_in() == 10
    clock.now += 10
    assert breaker.state == "half-open"
    assert breaker.allow() and not breaker.allow()  # one trial at a time
    breaker.record_failure()
    assert breaker.state == "open"  # the trial failed: open again
    clock.now += 10
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state == "closed" and breaker.failures == 0


async def test_unreachable_primary_falls_back_visibly(fake_openai, fake_anthropic, tmp_path) -> None:
    fake_anthropic.queue(TextReply("Claude here."))
    primary = openai_model(fake_openai, "local")
    primary.base_url = DEAD
    models = registry_for({"local": primary, "claude": anthropic_model(fake_anthropic, "claude")},
                          fallback=["claude"])
    rec = Recorder()
    session, store = await models_session(models, tmp_path / "ws", tmp_path, rec)
    (tmp_path / "ws").mkdir(exist_ok=True)
    await session.run_turn("hello")
    assert rec.text() == "Claude here."
    fallback = rec.of(ev.FallbackUsed)
    assert [(f.from_alias, f.to_alias) for f in fallback] == [("local", "claude")]
    assert any("falling back to claude" in n.text for n in rec.of(ev.Notice))
    assert rec.of(ev.TurnFinished)[-1].outcome == "done"
    assert session.model_alias == "local"  # the next turn tries the primary again
    await close(models, store)


async def test_breaker_opens_and_later_turns_skip_the_dead_backend(fake_openai, fake_anthropic, tmp_path) -> None:
    (tmp_path / "ws").mkdir()
    primary = openai_model(fake_openai, "local")
    primary.base_url = DEAD
    models = registry_for({"local": primary, "claude": anthropic_model(fake_anthropic, "claude")},
                          fallback=["claude"], threshold=2)
    rec = Recorder()
    session, store = await models_session(models, tmp_path / "ws", tmp_path, rec)
    for _ in range(3):
        await session.run_turn("hi")
    states = [(b.backend, b.state) for b in rec.of(ev.BreakerChanged)]
    assert states == [(f"openai:{DEAD}", "open")]
    assert any("Skipping local" in n.text for n in rec.of(ev.Notice))
    assert models.breaker_states()[f"openai:{DEAD}"] == "open"
    assert len(fake_anthropic.requests) == 3
    await close(models, store)


async def test_no_fallback_for_non_retryable_errors(fake_openai, fake_anthropic, tmp_path) -> None:
    (tmp_path / "ws").mkdir()
    fake_openai.queue(ErrorReply(401, "bad key"))
    models = registry_for({"local": openai_model(fake_openai, "local"),
                           "claude": anthropic_model(fake_anthropic, "claude")}, fallback=["claude"])
    rec = Recorder()
    session, store = await models_session(models, tmp_path / "ws", tmp_path, rec)
    await session.run_turn("hi")
    assert not rec.of(ev.FallbackUsed) and fake_anthropic.requests == []
    assert "401" in rec.of(ev.Notice)[-1].text
    await close(models, store)


async def test_switching_model_mid_conversation_keeps_tools_working(fake_openai, fake_anthropic, tmp_path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("remember the milk\n")
    fake_openai.queue(ToolCallReply(calls=[("read_file", '{"path": "notes.txt"}', "c1")]),
                      TextReply("It says to remember the milk."))
    fake_anthropic.queue(ToolCallReply(calls=[("read_file", '{"path": "notes.txt"}', "t1")]),
                         TextReply("Still the milk."))
    models = registry_for({"local": openai_model(fake_openai, "local", context_window=32000),
                           "claude": anthropic_model(fake_anthropic, "claude")})
    rec = Recorder()
    session, store = await models_session(models, workspace, tmp_path, rec)
    await session.run_turn("what do my notes say?")
    settings = await session.set_model("claude")
    assert settings.provider == "anthropic"
    assert rec.of(ev.ModelChanged)[-1].context_window == 200_000
    await session.run_turn("and again?")
    assert rec.text().endswith("Still the milk.")
    body = fake_anthropic.requests[0]
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]  # alternating, results grouped
    assert body["messages"][2]["content"][0]["type"] == "tool_result"
    assert (await store.get_config(session.workstream_id))["model_alias"] == "claude"
    assert (await store.get_workstream(session.workstream_id)).model == "fake-claude"
    await close(models, store)


def test_registry_from_config_and_cli(tmp_path) -> None:
    from app.settings.config import load_config

    path = tmp_path / "config.toml"
    path.write_text('[model]\ndefault = "local"\nfallback = ["claude"]\n\n'
                    '[models.local]\nbase_url = "http://127.0.0.1:8000/v1"\nmodel = "qwen"\n\n'
                    '[models.claude]\nprovider = "anthropic"\nmodel = "claude-sonnet-4-6"\n'
                    '[models.claude.price]\ninput = 1.0\noutput = 2.0\n')
    config = load_config(path)
    env = {"ANTHROPIC_API_KEY": "ak", "ANTHROPIC_BASE_URL": "http://a", "GEMINI_API_KEY": "gk"}
    reg = ModelRegistry.from_config(config, env=env)
    assert reg.default == "local" and reg.chain() == ["local", "claude"]
    claude = reg.settings("claude")
    assert (claude.api_key, claude.base_url, claude.price["input"]) == ("ak", "http://a", 1.0)
    assert [m.alias for m in reg.describe()] == ["local", "claude"]
    adhoc = ModelRegistry.from_config(config, provider="google", model="gemini-2.5-flash", env=env)
    cli = adhoc.settings(adhoc.default)
    assert (adhoc.default, cli.provider, cli.api_key) == ("cli", "google", "gk")
    picked = ModelRegistry.from_config(config, model="claude", base_url="http://other", env=env)
    assert picked.default == "claude" and picked.settings("claude").base_url == "http://other"
