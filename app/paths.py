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


def default_config_path() -> Path:
    """The config file: $WHIMBREL_CONFIG, else config.toml in the user config dir."""
    override = os.environ.get("WHIMBREL_CONFIG")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME)) / "config.toml"
