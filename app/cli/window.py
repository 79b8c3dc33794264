"""The window's command line: `whimbrel [--model NAME] [--workdir DIR] ...` (no subcommand), whose
--help also lists the subcommands. Apart from entry.py so the completion scripts can read it."""

from __future__ import annotations

import argparse
from pathlib import Path


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        """A stray word among the window's options names the subcommands it may have meant."""
        if message.startswith("unrecognized arguments"):
            from app.cli.commands import COMMANDS

            message += f" (subcommands come first: whimbrel {{{','.join(COMMANDS)}}} ...)"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    from app.providers.registry import PROVIDERS  # names only: no SDK is imported

    from app.cli.commands import commands_epilog

    parser = _Parser(
        prog="whimbrel",
        usage="whimbrel [OPTIONS]  (the window)\n       whimbrel COMMAND ...",
        description="A terminal workspace for LLM agents. With no command, the full-screen window starts.",
        epilog=commands_epilog() + "\n\nEnvironment: OPENAI_API_KEY, OPENAI_BASE_URL, WHIMBREL_DATA_DIR, "
               "WHIMBREL_CONFIG.\nTopics: whimbrel help (rules, keys, config).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY)")
    parser.add_argument("--model", help="model name, or an alias from [models.*] in the config")
    parser.add_argument("--provider", choices=PROVIDERS, default=None,
                        help="API of an ad-hoc --model (default openai; Anthropic's base URL has no /v1)")
    parser.add_argument("--vision", action="store_true",
                        help="the --model takes images (/image, pasted image paths)")
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
