"""What every face without a window needs before it starts: the model flags, the config, the model registry.

`whimbrel run` and `whimbrel acp` share these, so both read the same config the TUI does.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class SetupProblem(Exception):
    """A usage problem found before starting (malformed config, no model, missing workdir), in words."""


@dataclass
class Setup:
    config: Any  # app.settings.config.Config
    config_path: Path
    models: Any  # providers.models.ModelRegistry with a default
    workdir: Path
    data_dir: Path
    tool_mode: str | None = None  # --tools-mode: wins over the workstream's, its model's and [tools] mode


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    from app.providers.registry import PROVIDERS  # names only: no SDK is imported
    from tools.visibility import TOOL_MODES

    parser.add_argument("--model", help="model name, or an alias from [models.*] in the config")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY)")
    parser.add_argument("--provider", choices=PROVIDERS, default=None, help="API of an ad-hoc --model")
    parser.add_argument("--vision", action="store_true", help="the --model takes images (/image, @image.png)")
    parser.add_argument("--workdir", type=Path, default=None, help="workspace (default: the current directory)")
    parser.add_argument("--data-dir", type=Path, default=None, help="where workstreams are stored")
    parser.add_argument("--config", type=Path, default=None, help="config file")
    parser.add_argument("--tools-mode", choices=TOOL_MODES, default=None,
                        help="how tools are offered: one function each (native), one run_code program against "
                             "their Python API (code), or both (default: [models.X] tool_mode, else [tools] mode)")


def setup_from(args: argparse.Namespace) -> Setup:
    """Load the config and build the model registry; SetupProblem when something is missing or wrong."""
    from app.settings.config import ConfigError, load_config
    from app.settings.paths import chosen_config_path, default_data_dir
    from app.providers.models import ModelRegistry

    config_path, named_by = chosen_config_path(args.config)
    try:
        config = load_config(config_path, named_by)
    except ConfigError as error:
        raise SetupProblem(str(error)) from None
    workdir = (args.workdir or Path.cwd()).expanduser()
    if not workdir.is_dir():
        raise SetupProblem(f"--workdir {workdir} is not a directory")
    models = ModelRegistry.from_args(config, args, env=os.environ)
    if not models.default:
        raise SetupProblem("no model is configured: give --model NAME (and --base-url URL), "
                           f"or add [models.*] to {config_path}")
    return Setup(config, config_path, models, workdir.resolve(),
                 (args.data_dir or default_data_dir()).expanduser(), getattr(args, "tools_mode", None))
