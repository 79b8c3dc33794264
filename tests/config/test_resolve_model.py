"""resolve_model: flags beat the environment, which beats the file."""

from __future__ import annotations

from pathlib import Path

from app.providers.resolve import resolve_model
from app.settings.config import Config, ModelConfig
from app.providers.base import ModelSettings


def _config(*models: ModelConfig, default: str | None = None) -> Config:
    return Config(path=Path("config.toml"), models={m.alias: m for m in models},
                  default_model=default)


LOCAL = ModelConfig(alias="local", model="qwen", base_url="http://local/v1",
                    context_window=8192, temperature=0.1, max_tokens=512)
CLOUD = ModelConfig(alias="cloud", model="gpt-x", base_url="https://cloud/v1",
                    api_key_env="CLOUD_KEY")


def test_no_model_anywhere_gives_none() -> None:
    assert resolve_model(_config(), env={}) is None
    assert resolve_model(_config(LOCAL, CLOUD), env={}) is None  # two models, no default


def test_only_model_is_used_with_placeholder_key() -> None:
    assert resolve_model(_config(LOCAL), env={}) == ModelSettings(
        model="qwen", base_url="http://local/v1", api_key="not-needed",
        context_window=8192, temperature=0.1, max_tokens=512, alias="local")


def test_default_model_key_from_named_env_then_openai_env() -> None:
    config = _config(LOCAL, CLOUD, default="cloud")
    env = {"CLOUD_KEY": "ck", "OPENAI_API_KEY": "ok"}
    assert resolve_model(config, env=env).api_key == "ck"
    assert resolve_model(config, env={"OPENAI_API_KEY": "ok"}).api_key == "ok"
    literal = ModelConfig(alias="cloud", model="gpt-x", api_key="lit", api_key_env="CLOUD_KEY")
    assert resolve_model(_config(literal), env=env).api_key == "lit"


def test_flags_override_default_model_values() -> None:
    settings = resolve_model(_config(LOCAL), base_url="http://flag/v1", api_key="fk", env={})
    assert (settings.model, settings.base_url, settings.api_key) == \
        ("qwen", "http://flag/v1", "fk")


def test_adhoc_model_precedence_flags_env_file() -> None:
    config = _config(CLOUD)
    env = {"OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "ek", "CLOUD_KEY": "ck"}
    flags = resolve_model(config, model="m1", base_url="http://flag/v1", api_key="fk", env=env)
    assert (flags.model, flags.base_url, flags.api_key) == ("m1", "http://flag/v1", "fk")
    from_env = resolve_model(config, model="m1", env=env)
    assert (from_env.base_url, from_env.api_key) == ("http://env/v1", "ek")
    from_file = resolve_model(config, model="m1", env={"CLOUD_KEY": "ck"})
    assert (from_file.base_url, from_file.api_key) == ("https://cloud/v1", "ck")
    assert from_file.context_window is None  # ad-hoc: nothing else inherited


def test_adhoc_model_without_config() -> None:
    settings = resolve_model(_config(), model="llama", env={})
    assert settings == ModelSettings(model="llama", base_url=None, api_key="not-needed")


def test_model_flag_naming_an_alias_uses_that_entry() -> None:
    settings = resolve_model(_config(LOCAL, CLOUD, default="local"), model="cloud",
                             env={"CLOUD_KEY": "ck"})
    assert (settings.model, settings.base_url, settings.api_key) == \
        ("gpt-x", "https://cloud/v1", "ck")
