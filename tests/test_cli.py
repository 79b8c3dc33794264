"""The command line: flags, environment and failures reported in words."""

from __future__ import annotations

import pytest

from app.cli.entry import build_parser, main


def test_parser_knows_every_documented_flag(tmp_path):
    args = build_parser().parse_args([
        "--base-url", "http://127.0.0.1:1/v1", "--api-key", "k", "--model", "m", "--workdir", str(tmp_path),
        "--data-dir", str(tmp_path / "d"), "--config", str(tmp_path / "c.toml"), "--resume", "abc"])
    assert (args.base_url, args.api_key, args.model, args.resume) == ("http://127.0.0.1:1/v1", "k", "m", "abc")
    assert args.workdir == tmp_path and args.data_dir == tmp_path / "d"


def test_bad_config_exits_2_naming_file_line_and_key(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('[tools]\nbash_timeout = 5\nbash_timout = 9\n')
    assert main(["--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "config.toml" in err and "line 3" in err and "bash_timout" in err


def test_workdir_must_exist(tmp_path, capsys):
    assert main(["--workdir", str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and "whimbrel" in capsys.readouterr().out


def test_a_named_config_file_must_exist(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "missing.toml"
    assert main(["--config", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"{missing}: no such config file (named by --config)" in err
    monkeypatch.setenv("WHIMBREL_CONFIG", str(missing))
    assert main([]) == 2
    assert "no such config file (named by $WHIMBREL_CONFIG)" in capsys.readouterr().err


def test_the_default_config_may_be_absent(tmp_path):
    """No --config and no WHIMBREL_CONFIG: an absent config.toml in the user config dir means defaults."""
    from app.settings.config import load_config
    from app.settings.paths import chosen_config_path

    path, named_by = chosen_config_path(None)
    assert named_by is None and not path.exists()
    assert load_config(path, named_by).path == path
