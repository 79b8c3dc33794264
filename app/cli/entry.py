"""Command line: `whimbrel` starts the window (its flags: window.py), `whimbrel COMMAND ...` a subcommand."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from app.cli.window import build_parser

__all__ = ["build_parser", "main", "run_app", "exit_hint"]


def main(argv: list[str] | None = None) -> int:
    entry_point = argv is None  # the process's own command line: it may end without tearing Python down
    argv = sys.argv[1:] if argv is None else argv
    if any(word.startswith("--db-url") for word in argv):  # the store, for any command (app/storage/location.py)
        from app.storage.location import take_db_url_flag

        argv = take_db_url_flag(argv)
    if argv[:1] == ["mcp"]:
        from app.mcp.cli import main as mcp_main

        code = mcp_main(argv[1:], own_process=entry_point)
        if entry_point and argv[1:2] != ["serve"]:  # a one-shot verb: its servers are stopped, its JSON printed
            from app.headless.cli import exit_now  # skip the teardown of the SDK's thousands of objects

            return exit_now(code)
        return code
    if argv[:1] == ["db"]:
        from app.transfer.db_cli import main as db_main

        return db_main(argv[1:])
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
    if argv[:1] == ["serve"]:
        from app.serve.cli import main as serve_main

        return serve_main(argv[1:], window_parser=build_parser)
    if argv[:1] in (["completion"], ["help"]):
        from app.cli.helping import main as helping_main

        return helping_main(argv[0], argv[1:])
    if argv and not argv[0].startswith("-"):  # the window takes no words: a mistyped subcommand
        from app.cli.commands import not_a_command

        print(not_a_command(argv[0]), file=sys.stderr)
        return 2
    from app.runtime import startup_gc

    startup_gc.hold()  # no garbage collection until the first frame is painted (app/runtime/startup_gc.py)
    try:
        return run_app(argv)
    finally:
        startup_gc.release()


def run_app(argv: list[str]) -> int:
    """The full-screen app: parse, load the config and models, start reading the saved tabs, run."""
    args = build_parser().parse_args(argv)
    if "WHIMBREL_SERVED_BY" in os.environ:  # a browser tab's app (`whimbrel serve`): it ends with its server
        from app.serve.child import die_with_server

        die_with_server()
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

    models = ModelRegistry.from_args(config, args, env=os.environ)
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

