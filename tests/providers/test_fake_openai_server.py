"""The fake OpenAI server itself: JSON scripts, the models list, token mode, the CLI."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_llm.openai_server import FakeOpenAIServer
from tests.fake_llm.script import TextReply, TokensReply, ToolCallReply, reply_from_dict
from tests.subprocesses import stopped_at_exit


def test_reply_from_dict_builds_each_type():
    assert reply_from_dict({"type": "text", "text": "hi", "usage": [3, 1]}) == TextReply(
        "hi", usage=(3, 1))
    call = reply_from_dict({"type": "tool_call", "calls": [
        {"name": "write_file", "arguments": {"path": "a"}, "id": ""}, {"name": "ls"}]})
    assert call == ToolCallReply(calls=[("write_file", '{"path": "a"}', ""), ("ls", "{}")])
    assert reply_from_dict({"type": "tokens", "count": 7}) == TokensReply(count=7)
    with pytest.raises(ValueError, match="unknown reply type"):
        reply_from_dict({"type": "nope"})


async def test_models_and_token_mode_through_the_sdk(fake_openai):
    from openai import AsyncOpenAI

    fake_openai.queue(TokensReply(count=50))
    client = AsyncOpenAI(base_url=fake_openai.base_url, api_key="x", max_retries=0)
    models = await client.models.list()
    stream = await client.chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "go"}], stream=True)
    contents = [c.choices[0].delta.content async for c in stream
                if c.choices and c.choices[0].delta.content]
    await client.close()
    assert [m.id for m in models.data] == ["fake-model"]
    assert contents == ["tok "] * 50
    assert fake_openai.completed == 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ignore_sigint() -> None:
    """As a shell does for a job started with `&` from a script: the child inherits SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_standalone_cli_serves_script_then_tokens(tmp_path: Path, stop_signal: signal.Signals):
    """The CLI serves its script, then token replies, and exits cleanly on SIGTERM or Ctrl+C,
    even when started with SIGINT ignored."""
    import httpx2

    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"type": "text", "text": "scripted"}]))
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_llm.openai_server", "--port", str(port),
         "--script", str(script), "--tokens", "3"],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2], preexec_fn=ignore_sigint)
    with stopped_at_exit(proc):
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == f"fake OpenAI server on http://127.0.0.1:{port}/v1"
        url = f"http://127.0.0.1:{port}/v1/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
        replies = [httpx2.post(url, json=body, timeout=10).json() for _ in range(2)]
        texts = [r["choices"][0]["message"]["content"] for r in replies]
        assert texts == ["scripted", "tok tok tok "]
        proc.send_signal(stop_signal)
        assert proc.wait(30) == 0


def test_server_can_run_standalone_as_a_context_manager():
    import httpx2

    with FakeOpenAIServer(models=("a", "b")) as server:
        listed = httpx2.get(f"{server.base_url}/models", timeout=10).json()
    assert [m["id"] for m in listed["data"]] == ["a", "b"]
