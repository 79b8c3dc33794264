"""Default locations honour the WHIMBREL_* environment overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings.paths import default_config_path, default_data_dir


def test_env_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("WHIMBREL_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("WHIMBREL_CONFIG", str(tmp_path / "c.toml"))
    assert default_data_dir() == tmp_path / "d"
    assert default_config_path() == tmp_path / "c.toml"


def test_platform_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHIMBREL_DATA_DIR", raising=False)
    monkeypatch.delenv("WHIMBREL_CONFIG", raising=False)
    assert "whimbrel" in str(default_data_dir()).lower()
    path = default_config_path()
    assert path.name == "config.toml" and "whimbrel" in str(path.parent).lower()
