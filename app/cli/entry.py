"""Command line: `whimbrel [--base-url URL] [--api-key KEY] [--model NAME] [--workdir DIR] ...`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    from app.providers.registry import PROVIDERS  # names only: no SDK is imported

    parser = argparse.ArgumentParser(
        prog="whimbrel",
        description="A terminal workspace for LLM agents.",
        epilog="Environment: OPENAI_API_KEY, OPENAI_BASE_URL, WHIMBREL_DATA_DIR, WHIMBREL_CONFIG.",
    )
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY)")
    parser.add_argument("--model", help="model name, or an alias from [models.*] in the config")
    parser.add_argument("--provider", choices=PROVIDERS, default=None,
                        help="API of an ad-hoc --model (default openai; Anthropic's base URL has no /v1)")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="workspace the tools act in (default: the current directory)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where conversations are stored (default: $WHIMBREL_DATA_DIR or the user data dir)")
    parser.add_argument("--config", type=Path, default=None,
                        help="config file (default: $WHIMBREL_CONFIG or config.toml in the user config dir)")
    parser.add_argument("--resume", metavar="ID_OR_PREFIX", help="resume a saved workstream")
    parser.add_argument("--worktree", action="store_true",
                        help="run the workstream in its own git worktree (under the data dir, from HEAD)")
    parser.add_argument("--dangerously-bypass-approvals", action="store_true", dest="bypass",
                        help="run every tool call without asking (critical risk still asks); shown in red")
    parser.add_argument("--version", action="version", version="whimbrel 0.1.0")
    return parser


def main(argv: list[str] | None = None) -> int:
    entry_point = argv is None  # the process's own command line: it may end without tearing Python down
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["mcp"]:
        from app.mcp.cli import main as mcp_main

        return mcp_main(argv[1:])
    if argv[:1] in (["export"], ["import"]):
        from app.transfer.workstream_transfer import main as transfer_main

        return transfer_main(argv[0], argv[1:])
    if argv[:1] == ["run"]:
        from app.headless.cli import exit_now, main as run_main

        code = run_main(argv[1:])
        return exit_now(code) if entry_point else code
    if argv[:1] == ["acp"]:
        from app.acp.cli import main as acp_main

        return acp_main(argv[1:])
    if argv[:1] in (["policy"], ["audit"]):
        from app.permissions.cli import main as permissions_main

        return permissions_main(argv)
    from app.runtime import startup_gc

    startup_gc.hold()  # no garbage collection until the first frame is painted (app/runtime/startup_gc.py)
    try:
        return run_app(argv)
    finally:
        startup_gc.release()


def run_app(argv: list[str]) -> int:
    """The full-screen app: parse, load the config and models, start reading the saved tabs, run."""
    args = build_parser().parse_args(argv)
    from app.settings.config import ConfigError, load_config
    from app.settings.paths import chosen_config_path, default_data_dir

    config_path, named_by = chosen_config_path(args.config)
    try:
        config = load_config(config_path, named_by)
    except ConfigError as error:
        print(f"whimbrel: {error}", file=sys.stderr)
        return 2
    workdir = (args.workdir or Path.cwd()).expanduser()
    if not workdir.is_dir():
        print(f"whimbrel: --workdir {workdir} is not a directory", file=sys.stderr)
        return 2
    from app.providers.models import ModelRegistry

    models = ModelRegistry.from_config(config, provider=args.provider, base_url=args.base_url,
                                       api_key=args.api_key, model=args.model, env=os.environ)
    settings = models.settings(models.default) if models.default else None
    data_dir = (args.data_dir or default_data_dir()).expanduser()
    from app.storage.peek import read_in_background

    saved_tabs = read_in_background(data_dir / "whimbrel.db")  # while Textual is imported: the first frame shows them
    from app.tui.app import AppOptions, WhimbrelApp

    options = AppOptions(
        settings=settings,
        models=models if models.default else None,
        auto_compact_pct=config.auto_compact_pct,
        config=config,
        workdir=workdir.resolve(),
        data_dir=data_dir,
        config_path=config_path,
        resume=args.resume,
        bash_timeout=config.bash_timeout,
        output_limit=config.output_limit,
        max_open=config.max_open,
        retention_days=config.retention_days,
        bell=config.bell,
        notifications=config.notifications,
        worktree=args.worktree,
        bypass=args.bypass,
        saved_tabs=saved_tabs,
    )
    from app.tui.lifecycle import quit_signals

    app = WhimbrelApp(options)
    with quit_signals.bounded_exit():  # a SIGHUP or SIGTERM ends the process, even if shutdown sticks
        app.run()
    hint = exit_hint(app, args.data_dir)
    if hint:
        try:
            print(hint, flush=True)
        except OSError:  # the terminal is gone (SIGHUP): nobody is there to read it
            pass
    return app.return_code or 0


def exit_hint(app, data_dir_arg: Path | None) -> str:
    """The line printed after the app: how to resume, or why there is nothing to resume."""
    workstream = app.workstream
    if workstream is None or not workstream.id:
        return ""
    if app.temporary_store:
        return (f"Nothing was saved: {app.options.data_dir / 'whimbrel.db'} could not be opened, so this "
                "session used a temporary store, deleted now.")
    if app.store is not None and app.store.lost:
        return f"Nothing more was saved: {app.store.path} was deleted while Whimbrel was running."
    if not workstream.session.messages:
        return ""  # an empty workstream is pruned: there is nothing to resume
    return (f"Resume this conversation with: whimbrel --resume {workstream.id[:8]}"
            + (f" --data-dir {data_dir_arg}" if data_dir_arg else ""))

