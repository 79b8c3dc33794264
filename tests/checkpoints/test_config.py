"""The [checkpoints] block of config.toml: defaults, values, and errors with file and line."""

from __future__ import annotations

import pytest

from app.settings.config import ConfigError, load_config


def test_defaults_when_the_block_is_absent(tmp_path):
    config = load_config(tmp_path / "missing.toml")
    assert (config.checkpoints_enabled, config.checkpoint_ignore, config.checkpoint_max_file_mb) == (True, [], 10.0)


def test_values_are_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[checkpoints]\nenabled = false\nignore = ["*.log", "data/"]\nmax_file_mb = 2.5\n')
    config = load_config(path)
    assert (config.checkpoints_enabled, list(config.checkpoint_ignore), config.checkpoint_max_file_mb) == \
        (False, ["*.log", "data/"], 2.5)


@pytest.mark.parametrize("line, said", [
    ("ignore = '*.log'", "a list of strings"),
    ("max_file_mb = -1", "max_file_mb"),
    ("shadow = true", "shadow"),
])
def test_bad_values_say_file_line_and_key(tmp_path, line, said):
    path = tmp_path / "config.toml"
    path.write_text(f"[checkpoints]\n{line}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert f"{path} line 2" in str(caught.value) and said in str(caught.value)
