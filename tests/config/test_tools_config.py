"""The [tools] settings: tool search and what web tools may reach."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings.config import ConfigError, load_config
from app.engine.tool_setup import web_access


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""))
    assert (config.tool_search, config.tool_search_threshold) == ("auto", 20)
    assert config.web_allow_hosts == () and config.web_max_bytes == 5_000_000
    assert web_access(config).policy.allow_networks == ()


def test_values_reach_the_web_policy(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[tools]\ntool_search = "off"\ntool_search_threshold = 40\n'
                                         'web_allow_hosts = ["docs.local"]\nweb_allow_networks = ["10.0.0.0/8"]\n'
                                         'web_max_bytes = 1000\nweb_timeout = 5\n'))
    access = web_access(config)
    assert access.policy.allow_hosts == ("docs.local",) and access.limits.max_bytes == 1000
    assert str(access.policy.networks[0]) == "10.0.0.0/8" and access.limits.timeout == 5
    assert (config.tool_search, config.tool_search_threshold) == ("off", 40)


@pytest.mark.parametrize("line, words", [
    ('web_allow_networks = ["not a net"]', "web_allow_networks must be a list of networks"),
    ('tool_search = "sometimes"', "tool_search must be one of 'auto', 'on', 'off'"),
    ("web_max_bytes = 0", "web_max_bytes must be at least 1")])
def test_bad_values_name_the_key_and_line(tmp_path: Path, line: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, f"[tools]\n{line}\n"))
    assert words in str(caught.value) and "line 2" in str(caught.value)
