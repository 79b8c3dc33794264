"""Where Whimbrel keeps its data and config (platformdirs defaults, env overrides)."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "whimbrel"


def default_data_dir() -> Path:
    """The data directory: $WHIMBREL_DATA_DIR, else the platform's user data dir."""
    override = os.environ.get("WHIMBREL_DATA_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME))


def chosen_config_path(cli_value: Path | None) -> tuple[Path, str | None]:
    """The config file to read and who named it: "--config", "$WHIMBREL_CONFIG", or None for the
    default location. A file the user named must exist; an absent default just means no config."""
    if cli_value is not None:
        return Path(cli_value).expanduser(), "--config"
    if os.environ.get("WHIMBREL_CONFIG"):
        return default_config_path(), "$WHIMBREL_CONFIG"
    return default_config_path(), None


def default_config_path() -> Path:
    """The config file: $WHIMBREL_CONFIG, else config.toml in the user config dir."""
    override = os.environ.get("WHIMBREL_CONFIG")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME)) / "config.toml"
