"""The command line explains itself: every subcommand listed and described, a mistyped one named,
`whimbrel help TOPIC`, and completion scripts that complete in a real bash."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from app.cli.commands import COMMANDS, parser_for, subcommands
from app.cli.completion import script
from app.cli.entry import main
from app.cli.topics import TOPICS

SUBCOMMANDS = ("mcp", "run", "acp", "serve", "export", "import", "db", "policy", "audit", "completion", "help")


def _help(capsys, *argv: str) -> str:
    try:
        code = main([*argv, "--help"])  # `whimbrel mcp` returns argparse's exit code
    except SystemExit as exit_:
        code = exit_.code
    assert code == 0
    return capsys.readouterr().out


def test_top_help_lists_every_subcommand_with_its_line(capsys):
    out = _help(capsys).split("Commands (")[1]
    for name in SUBCOMMANDS:
        line = next((row for row in out.splitlines() if row.split()[:1] == [name]), "")
        assert COMMANDS[name] in line, name
    assert set(COMMANDS) == set(SUBCOMMANDS)


def test_a_word_that_is_no_subcommand_names_the_valid_ones(capsys):
    assert main(["foo"]) == 2
    err = capsys.readouterr().err
    assert "'foo' is not a subcommand" in err
    assert all(name in err for name in SUBCOMMANDS)


def test_a_stray_word_after_window_flags_points_at_the_subcommands(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--model", "m", "mpc"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: mpc" in err and "subcommands come first" in err and "mcp" in err


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_and_verb_has_a_description(name, capsys):
    parser = parser_for(name)
    assert parser.description, name
    for verb, sub in subcommands(parser).items():
        assert sub.description, f"{name} {verb}"


def test_mcp_help_lists_serve_and_the_verbs_explain_server(capsys):
    out = _help(capsys, "mcp")
    assert "serve" in out and "serve Whimbrel's own tools" in out
    for verb in ("tools", "ping", "call", "read", "prompt", "logout"):
        verb_help = _help(capsys, "mcp", verb)
        assert "stdio:<command line>" in verb_help and "URL" in verb_help, verb
    assert "--http" in _help(capsys, "mcp", "serve")


def test_export_format_has_help(capsys):
    assert "is what `whimbrel import` reads" in " ".join(_help(capsys, "export").split())


def test_policy_without_an_action_prints_the_actions(capsys):
    assert main(["policy"]) == 2
    err = capsys.readouterr().err
    assert "required: action" not in err
    assert all(action in err for action in ("check", "list", "review"))


def test_help_lists_topics_and_explains_each(capsys):
    assert main(["help"]) == 0
    listing = capsys.readouterr().out
    assert all(topic in listing for topic in ("rules", "keys", "config"))
    assert main(["help", "rules"]) == 0
    assert "deny beats ask beats allow" in capsys.readouterr().out  # README's Permissions section
    assert main(["help", "keys"]) == 0
    assert "[keymap]" in capsys.readouterr().out  # docs/keys.md
    assert main(["help", "config"]) == 0
    config = capsys.readouterr().out
    assert "[mcp.servers.time]" in config and "WHIMBREL_CONFIG" in config
    assert main(["help", "mcp"]) == 0
    assert "serve" in capsys.readouterr().out


def test_an_unknown_topic_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["help", "nope"])
    assert exit_.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def _complete(tmp_path, *words: str) -> list[str]:
    """COMPREPLY of the bash script's _whimbrel for a command line whose last word is being typed."""
    path = tmp_path / "whimbrel.bash"
    path.write_text(script("bash"))
    quoted = " ".join(f"'{word}'" for word in words)
    program = (f"source {path}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; _whimbrel\n"
               'printf "%s\\n" "${COMPREPLY[@]}"\n')
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


def test_bash_completion_completes_subcommands_verbs_flags_and_values(tmp_path):
    assert _complete(tmp_path, "whimbrel", "m") == ["mcp"]
    assert _complete(tmp_path, "whimbrel", "mcp", "s") == ["serve"]
    assert "--mode" in _complete(tmp_path, "whimbrel", "run", "--mo")
    assert _complete(tmp_path, "whimbrel", "run", "--mode", "pl") == ["plan"]
    assert _complete(tmp_path, "whimbrel", "policy", "") == ["check", "list", "review", "team"]
    assert _complete(tmp_path, "whimbrel", "completion", "z") == ["zsh"]
    assert "--http" in _complete(tmp_path, "whimbrel", "mcp", "serve", "--ht")
    assert _complete(tmp_path, "whimbrel", "--work") == ["--workdir", "--worktree"]  # the window's flags


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts(shell, tmp_path):
    text = script(shell)
    for name in SUBCOMMANDS:
        assert name in text, name
    assert "serve" in text and "--mode" in text.replace("-l mode", "--mode")
    if shutil.which(shell) is None:
        return  # not installed here: the text is what can be checked
    path = tmp_path / f"whimbrel.{shell}"
    path.write_text(text)
    done = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_completion_prints_a_script(capsys):
    assert main(["completion", "bash"]) == 0
    assert "complete -o default -F _whimbrel whimbrel" in capsys.readouterr().out


def test_a_topic_without_its_document_says_where_the_text_is(tmp_path, monkeypatch, capsys):
    import app.cli.topics as topics

    monkeypatch.setattr(topics, "ROOT", tmp_path)  # an install that shipped no README or docs/
    assert main(["help", "keys"]) == 0
    out = capsys.readouterr().out
    assert "docs/keys.md in Whimbrel's source (not installed here)" in out and "F1" in out


def test_serve_describes_itself_as_the_top_help_does():
    from app.serve.cli import ABOUT

    assert ABOUT == COMMANDS["serve"]  # one sentence, written twice so app/serve imports nothing of app/cli
