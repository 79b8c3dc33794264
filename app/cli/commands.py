"""The subcommands of `whimbrel`: their one-line descriptions (shown by `whimbrel --help` and in the
message for a word that is not one) and, loaded only when asked for, each one's own parser — so the
help, `whimbrel help COMMAND` and the completion scripts are all read off the parsers the commands use.

Nothing here imports a subcommand's module at start: the bare `whimbrel` must stay quick to paint."""

from __future__ import annotations

import argparse

COMMANDS = {
    "run": "run one prompt without the window; the reply goes to stdout",
    "mcp": "inspect and call MCP servers, or serve Whimbrel's tools over MCP (mcp serve)",
    "acp": "serve the Agent Client Protocol on stdio, for editors",
    "serve": "serve the window to a browser: one app per tab, behind a token (docs/serve.md)",  # = app.serve.cli.ABOUT
    "export": "write a saved workstream to a file or stdout: JSON (default, importable) or Markdown (for reading)",
    "import": "add a workstream written by `whimbrel export` (its default JSON, not Markdown) to the store",
    "db": "the store: status, migrate, copy a history into a team's PostgreSQL",
    "policy": "check, list and review permission rules",
    "audit": "the audit log of tool calls",
    "completion": "print a shell completion script: bash, zsh or fish",
    "help": "a short text on a topic (rules, keys, config) or a subcommand's help",
}

SHELLS = ("bash", "zsh", "fish")


def commands_epilog() -> str:
    """The `Commands:` block of `whimbrel --help`."""
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {about}" for name, about in COMMANDS.items()]
    return "Commands (`whimbrel COMMAND --help` for each):\n" + "\n".join(lines)


def not_a_command(word: str) -> str:
    """The message for `whimbrel WORD` when WORD is not a subcommand."""
    return (f"whimbrel: {word!r} is not a subcommand; the subcommands are: {', '.join(COMMANDS)}.\n"
            "The window starts with no word at all (`whimbrel`, or `whimbrel --model NAME`); "
            "`whimbrel --help` explains each.")


def _completion_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="whimbrel completion", description=COMMANDS["completion"].capitalize() + ", generated from "
        "the command line's own parsers.", epilog="bash: eval \"$(whimbrel completion bash)\" in ~/.bashrc; "
        "zsh: eval \"$(whimbrel completion zsh)\" in ~/.zshrc; "
        "fish: whimbrel completion fish > ~/.config/fish/completions/whimbrel.fish")
    parser.add_argument("shell", choices=SHELLS, help="the shell the script is for")
    return parser


def _help_parser() -> argparse.ArgumentParser:
    from app.cli.topics import TOPICS

    parser = argparse.ArgumentParser(prog="whimbrel help", description=COMMANDS["help"].capitalize() + ".")
    parser.add_argument("topic", nargs="?", choices=[*TOPICS, *COMMANDS],
                        help=f"a topic ({', '.join(TOPICS)}) or a subcommand; none lists the topics")
    return parser


def parser_for(name: str) -> argparse.ArgumentParser:
    """The parser of one subcommand (its module is imported now); KeyError for an unknown name."""
    if name == "run":
        from app.headless.cli import build_parser
        return build_parser()
    if name == "mcp":
        from app.mcp.cli import build_parser
        from app.mcp.serve import build_parser as serve_parser

        parser = build_parser()  # its `serve` is only listed there: the real one is serve.py's
        next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["serve"] = serve_parser()
        return parser
    if name == "acp":
        from app.acp.cli import build_parser
        return build_parser()
    if name == "serve":
        from app.serve.cli import build_parser
        return build_parser()
    if name in ("export", "import"):
        from app.transfer.workstream_transfer import build_parser
        return build_parser(name)
    if name == "db":
        from app.transfer.db_cli import build_parser
        return build_parser()
    if name in ("policy", "audit"):
        from app.permissions.cli import build_parser
        return subcommands(build_parser())[name]
    return {"completion": _completion_parser, "help": _help_parser}[name]()


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's subcommands by name, in the order they were added (none: empty)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}
