"""[agents.NAME]: external ACP agents in config.toml (command, args, env), checked when loaded."""

from __future__ import annotations

import pytest

from app.settings.config import AgentConfig, ConfigError, load_config


def test_agents_are_read_with_their_command_args_and_env(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[agents.self]\ncommand = "whimbrel"\nargs = ["acp", "--model", "small"]\nenv = {X = "1"}\n'
                    '[agents.gemini]\ncommand = "gemini"\n')
    agents = load_config(path).agents
    assert agents == {"self": AgentConfig("self", "whimbrel", ["acp", "--model", "small"], {"X": "1"}),
                      "gemini": AgentConfig("gemini", "gemini", [], {})}


def test_no_agents_section_means_none(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("")
    assert load_config(path).agents == {}


@pytest.mark.parametrize("text, words", [
    ('[agents.x]\nargs = ["acp"]\n', "line 1: [agents.x] is missing the required key 'command'"),
    ('[agents.x]\ncommand = "a"\ncomand = "b"\n', "unknown key 'comand' in [agents.x] (did you mean 'command'?)"),
    ('[agents.x]\ncommand = "a"\nargs = "acp"\n', "[agents.x] args must be a list of strings"),
    ('[agents.x]\ncommand = "a"\nenv = {N = 1}\n', "[agents.x] env must be a table of strings"),
    ('agents = 3\n', "[agents] must be a table"),
    ('[agents]\nx = "gemini"\n', "[agents.x] must be a table"),
])
def test_malformed_agents_are_reported_with_file_line_and_key(tmp_path, text, words):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert words in str(error.value)
