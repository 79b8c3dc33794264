"""First-run discovery: keys, local server probes, and writing the choice into config.toml."""

from __future__ import annotations

import asyncio
import socket

from app.settings.config import load_config
from app.providers.discovery import detect_keys, probe_local, write_model_choice


def test_detects_each_provider_key() -> None:
    found = detect_keys({"OPENAI_API_KEY": "a", "GEMINI_API_KEY": "b", "ANTHROPIC_API_KEY": ""})
    assert [(c.provider, c.api_key_env) for c in found] == [("openai", "OPENAI_API_KEY"),
                                                           ("google", "GEMINI_API_KEY")]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_probe_finds_a_running_server_and_skips_closed_ports(fake_openai) -> None:
    fake_openai.models = ("qwen2.5-coder", "llama3.2")
    servers = (("vLLM", fake_openai.port, "vllm"), ("LM Studio", _closed_port(), "lmstudio"))
    found = await probe_local(timeout=3.0, servers=servers)  # generous: CI machines are busy
    assert [(c.alias, c.base_url, c.models) for c in found] == [
        ("vllm", f"http://127.0.0.1:{fake_openai.port}/v1", ["qwen2.5-coder", "llama3.2"])]


async def test_probe_gives_up_quickly_on_a_silent_server() -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # accepts, never answers
    try:
        # The probe's own timeout must end it: the outer bound only turns a hang into a failure.
        found = await asyncio.wait_for(
            probe_local(timeout=0.3, servers=(("vLLM", silent.getsockname()[1], "vllm"),)), 60)
        assert found == []
    finally:
        silent.close()


CONFIG = """\
# Whimbrel settings — hand-written
[tools]
bash_timeout = 60  # a minute is plenty

[models.local]  # my GPU box
base_url = "http://gpu:8000/v1"
model = "qwen"
"""


def test_write_model_choice_keeps_comments_and_sets_default(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    write_model_choice(path, alias="claude", provider="anthropic", model="claude-sonnet-4-6",
                       api_key_env="ANTHROPIC_API_KEY")
    text = path.read_text()
    for line in CONFIG.splitlines():
        assert line in text  # nothing the user wrote is lost or reformatted
    config = load_config(path)
    assert config.default_model == "claude"
    assert config.models["claude"].provider == "anthropic"
    assert config.models["local"].model == "qwen"


def test_write_model_choice_replaces_an_alias_and_creates_a_file(tmp_path) -> None:
    path = tmp_path / "sub" / "config.toml"
    write_model_choice(path, alias="ollama", provider="openai", model="llama3.2",
                       base_url="http://127.0.0.1:11434/v1", context_window=8192)
    write_model_choice(path, alias="ollama", provider="openai", model="qwen2.5",
                       base_url="http://127.0.0.1:11434/v1")
    config = load_config(path)
    assert config.default_model == "ollama" and config.models["ollama"].model == "qwen2.5"
    assert list(config.models) == ["ollama"]
