"""`whimbrel acp`: serve the Agent Client Protocol on stdin/stdout (stdout carries only the protocol)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from app.headless.policy import MODES
from app.headless.setup import SetupProblem, add_common_arguments, setup_from


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="whimbrel acp", description=(
        "Run Whimbrel as an ACP agent over stdio, for editors (Zed, JetBrains, Neovim) and other clients. "
        "Each ACP session is a workstream, stored and resumable like any other."))
    parser.add_argument("--mode", choices=MODES, default="ask",
                        help="the permission mode a new session starts in (the client may change it; default ask)")
    add_common_arguments(parser)
    return parser


async def serve(setup, mode: str = "ask") -> None:
    from app.acp.agent import WhimbrelAgent
    from app.acp.wire import run_agent
    from app.engine.guards import PermissionSetup
    from app.permissions.gate import protected_places
    from app.storage.async_store import AsyncStore
    from tools.registry import ToolRegistry

    store = await AsyncStore.open(setup.data_dir / "whimbrel.db")
    config = setup.config

    def permissions(workdir):  # the TUI's permission engine for the sessions in one workdir
        return PermissionSetup(config, workdir, store, protected=protected_places(workdir, setup.data_dir,
                                                                                  setup.config_path),
                               config_file=setup.config_path, data_dir=setup.data_dir)

    agent = WhimbrelAgent(store=store, models=setup.models, registry=ToolRegistry.load_builtin(),
                          bash_timeout=config.bash_timeout, output_limit=config.output_limit,
                          auto_compact_pct=config.auto_compact_pct, default_mode=mode, config=config,
                          tool_mode=setup.tool_mode, permissions=permissions)
    try:
        await run_agent(agent)
    finally:
        await agent.close()
        await setup.models.aclose()
        await store.aclose()


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        setup = setup_from(args)
    except SetupProblem as problem:
        print(f"whimbrel acp: {problem}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(setup, args.mode))
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # noqa: BLE001 - the store would not open, stdio broke: words on stderr
        print(f"whimbrel acp: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0
