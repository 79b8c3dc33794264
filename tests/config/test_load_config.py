"""load_config: defaults, a full file, and errors that say file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings.config import Config, ConfigError, ModelConfig, load_config

FULL = """\
# Whimbrel config
[model]
default = "local"
fallback = ["claude"]
agent_model = "claude"

[models.local]
base_url = "http://127.0.0.1:8080/v1"
model = "qwen3-coder"
context_window = 32768
temperature = 0.2

[models.local.capabilities]
vision = false

[models.claude]
provider = "anthropic"
api_key_env = "ANTHROPIC_API_KEY"
model = "claude-sonnet-4-5"
max_tokens = 8192
reasoning_effort = "high"

[tools]
bash_timeout = 30.5
output_limit = 1000

[ui]
bell = false
notifications = false

[workstreams]
max_open = 4
retention_days = 7
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, text))
    return str(info.value)


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "nope.toml")
    assert config == Config(path=tmp_path / "nope.toml")
    assert (config.bash_timeout, config.output_limit, config.bell, config.notifications,
            config.max_open, config.retention_days) == (120.0, 30000, True, True, 20, 90)
    assert config.models == {} and config.default_model is None and config.fallback == []


def test_empty_file_gives_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path, "# nothing yet\n")
    assert load_config(path) == Config(path=path)


def test_full_valid_file(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, FULL))
    assert (config.default_model, config.fallback, config.agent_model) == \
        ("local", ["claude"], "claude")
    assert config.models["local"] == ModelConfig(
        alias="local", provider="openai", base_url="http://127.0.0.1:8080/v1",
        model="qwen3-coder", context_window=32768, temperature=0.2,
        capabilities={"vision": False})
    assert config.models["claude"] == ModelConfig(
        alias="claude", provider="anthropic", api_key_env="ANTHROPIC_API_KEY",
        model="claude-sonnet-4-5", max_tokens=8192, reasoning_effort="high")
    assert (config.bash_timeout, config.output_limit, config.bell, config.notifications,
            config.max_open, config.retention_days) == (30.5, 1000, False, False, 4, 7)


def test_unknown_top_level_key(tmp_path: Path) -> None:
    msg = _error(tmp_path, "[ui]\nbell = true\n\n[tool]\nbash_timeout = 3\n")
    assert msg.endswith("config.toml line 4: unknown key 'tool' in the top level "
                        "(did you mean 'tools'?)")


def test_unknown_key_in_model_table(tmp_path: Path) -> None:
    text = ('[model]\ndefault = "local"\n\n[models.local]\nmodel = "m"\n'
            'base_url = "http://x"\ntempurature = 0.3\n')
    assert _error(tmp_path, text).endswith(
        "config.toml line 7: unknown key 'tempurature' in [models.local] "
        "(did you mean 'temperature'?)")


def test_unknown_key_in_nested_and_dotted_tables(tmp_path: Path) -> None:
    text = ('[models.a]\nmodel = "m"\n[models.a.capabilities]\nanything = 1\n'
            '[models.b]\nmodel = "m"\n\n[models.b.extra]\nx = 1\n'
            '[tools]\nui.bel = true\n')
    msg = _error(tmp_path, text)
    assert "config.toml line 8: unknown key 'extra' in [models.b]" in msg
    assert "config.toml line 11: unknown key 'ui' in [tools]" in msg
    assert "'anything'" not in msg  # capabilities are free-form


def test_dotted_key_at_top_level_gets_its_line(tmp_path: Path) -> None:
    msg = _error(tmp_path, '\n\nui.bel = true\n')
    assert msg.endswith("config.toml line 3: unknown key 'bel' in [ui] (did you mean 'bell'?)")


def test_wrong_types(tmp_path: Path) -> None:
    text = ('[ui]\nbell = "yes"\n[tools]\nbash_timeout = "2m"\noutput_limit = 1.5\n'
            '[models.x]\nprovider = "azure"\nmodel = 3\n[model]\nfallback = "x"\n')
    problems = _error(tmp_path, text).splitlines()
    assert [p.split("config.toml ", 1)[1] for p in problems] == [
        "line 2: [ui] bell must be true or false, got string",
        "line 4: [tools] bash_timeout must be a number, got string",
        "line 5: [tools] output_limit must be an integer, got float",
        "line 7: [models.x] provider must be one of 'openai', 'openai-responses', 'anthropic', "
        "'google', got 'azure'",
        "line 8: [models.x] model must be a string, got integer",
        "line 10: [model] fallback must be a list of strings, got string",
    ]


def test_out_of_range_and_missing_required(tmp_path: Path) -> None:
    msg = _error(tmp_path, '[workstreams]\nmax_open = 0\n[models.y]\nbase_url = "http://y"\n')
    assert "line 2: [workstreams] max_open must be at least 1, got 0" in msg
    assert "line 3: [models.y] is missing the required key 'model'" in msg


def test_section_that_is_not_a_table(tmp_path: Path) -> None:
    msg = _error(tmp_path, 'x = 1\ntools = 5\n')
    assert "line 2: [tools] must be a table, got integer" in msg


def test_model_references_must_exist(tmp_path: Path) -> None:
    msg = _error(tmp_path, '[model]\ndefault = "gpt"\n[models.local]\nmodel = "m"\n')
    assert msg.endswith("line 2: [model] default names 'gpt', which is not a model defined "
                        "under [models] (known: local)")


def test_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    msg = _error(tmp_path, '[ui]\nbell = true\nnotifications = = false\n')
    assert msg.startswith(str(tmp_path / "config.toml") + " line 3 column ")
    assert "invalid TOML: Unexpected character" in msg


def test_duplicate_key_is_a_syntax_error(tmp_path: Path) -> None:
    msg = _error(tmp_path, '[ui]\nbell = true\nbell = false\n')
    assert "line 3" in msg and "already exists" in msg


def test_multiline_string_does_not_confuse_line_numbers(tmp_path: Path) -> None:
    text = ('[models.x]\nmodel = "m"\nreasoning_effort = """\nfoo = 1\n"""\n'
            'foo = 2\n')
    assert _error(tmp_path, text).endswith("line 6: unknown key 'foo' in [models.x] "
                                           "(known keys: provider, base_url, api_key, "
                                           "api_key_env, model, context_window, temperature, "
                                           "max_tokens, reasoning_effort, capabilities, price, tool_mode)")


# -- [policy] and [hooks] ------------------------------------------------------

def test_policy_settings_and_rules_are_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[policy]\nmode = "auto"\nsandbox = "read-only"\nnetwork = true\njudge = "small"\n'
                    'allow = ["bash(git status)"]\n[[policy.rules]]\nrule = "bash(ls)"\n'
                    '[[hooks.PreToolUse]]\nmatcher = "bash"\n[[hooks.PreToolUse.hooks]]\ncommand = "true"\n'
                    '[models.small]\nmodel = "m"\n')
    config = load_config(path)
    assert (config.policy_mode, config.policy_sandbox, config.policy_network) == ("auto", "read-only", True)
    assert config.policy_rules == {"allow": ["bash(git status)"], "rules": [{"rule": "bash(ls)"}]}
    assert config.hooks["PreToolUse"][0]["matcher"] == "bash"


@pytest.mark.parametrize("line, words", [
    ('mode = "bypass"', "mode must be one of 'ask'"),  # bypass only from the command line
    ('sandbox = "none"', "sandbox must be one of 'read-only'"),
    ('network = "yes"', "network must be true or false"),
    ('mood = "ask"', "unknown key 'mood'"),
])
def test_policy_mistakes_name_the_line(tmp_path, line, words):
    said = _error(tmp_path, f"[policy]\n{line}\n")
    assert "line 2" in said and words in said


@pytest.mark.parametrize("text, line", [("x = 1\ny = 2\na = [1,\n2,\n", 4), ("[t]\nz = \"\"\"abc\n", 2),
                                        ("a = {b = 1", 1), ("a = ", 1), ("[a", 1)])
def test_a_file_that_ends_early_says_so_with_its_last_line(tmp_path: Path, text: str, line: int) -> None:
    msg = _error(tmp_path, text)
    assert msg.startswith(f"{tmp_path / 'config.toml'} line {line}: invalid TOML: the file ends early")
    assert "\\x00" not in msg and "Unexpected" not in msg
