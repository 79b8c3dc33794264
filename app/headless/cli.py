"""`whimbrel run [PROMPT]`: the argument parsing and the set-up of one headless run (no Textual here)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from app.headless import exit_codes
from app.headless.output import FORMATS, output_for
from app.headless.policy import MODES
from app.headless.setup import SetupProblem, add_common_arguments, setup_from

EPILOG = ("Exit codes: 0 success, 1 error, 2 usage error, 3 refused by policy, 4 limit reached "
          "(turns, budget, time), 130 interrupted. Events of --output stream-json: docs/headless.md.")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own exit code 2 is USAGE already; keep its words
        self.print_usage(sys.stderr)
        self.exit(exit_codes.USAGE, f"whimbrel run: {message}\n")


def _positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="whimbrel run", epilog=EPILOG,
                     description="Run one prompt without the window; the reply goes to stdout.")
    parser.add_argument("prompt", nargs="?", help="the prompt (default: read from stdin; '-' reads stdin too)")
    parser.add_argument("--output", choices=FORMATS, default="text", help="stdout format (default text)")
    parser.add_argument("--mode", choices=MODES, default="ask",
                        help="permission mode; in a headless run, what would ask is refused (default ask)")
    parser.add_argument("--allow", action="append", default=[], metavar="RULE",
                        help="allow calls matching a rule, TOOL or TOOL(PATTERN) as in [policy], e.g. 'bash(git *)'; repeatable")
    parser.add_argument("--deny", action="append", default=[], metavar="RULE",
                        help="refuse calls matching a rule; wins over --allow and every other rule; repeatable")
    parser.add_argument("--max-turns", type=_positive(int), metavar="N", help="at most N model requests")
    parser.add_argument("--max-budget-usd", type=_positive(float), metavar="USD", help="stop once this is spent")
    parser.add_argument("--timeout", type=_positive(float), metavar="SECONDS", help="stop after this long")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--resume", metavar="ID_OR_ALIAS", help="continue a saved workstream")
    where.add_argument("--continue", dest="continue_last", action="store_true",
                       help="continue the last workstream of this workspace")
    parser.add_argument("--name", metavar="ALIAS", help="give the workstream this alias")
    add_common_arguments(parser)
    return parser


def _prompt(args: argparse.Namespace) -> str:
    if args.prompt is not None and args.prompt != "-":
        return args.prompt
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return sys.stdin.read().rstrip("\r\n")  # the line break `echo` or a heredoc ends with is not the prompt's


def _usage(message: str) -> int:
    print(f"whimbrel run: {message}", file=sys.stderr)
    return exit_codes.USAGE


def exit_now(code: int) -> int:
    """End the process at once once a run is over: its store is closed and its output flushed, so the
    interpreter's teardown (a quarter of a short run's CPU) has nothing left to do but free memory."""
    import logging
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach it anyway
            pass
    os._exit(code)


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from app.permissions.rules import RuleError
    from app.permissions.unattended import cli_rules

    try:
        rules = cli_rules(args.allow, args.deny)
    except RuleError as error:
        return _usage(f"malformed rule {error}")
    prompt = _prompt(args)
    if not prompt.strip():
        return _usage("no prompt: give it as an argument or on stdin")
    try:
        setup = setup_from(args)
    except SetupProblem as problem:
        return _usage(str(problem))
    from app.headless.runner import HeadlessRun, RunOptions

    config = setup.config
    options = RunOptions(prompt=prompt, workdir=setup.workdir, data_dir=setup.data_dir, models=setup.models,
                         mode=args.mode, rules=rules, config=config, config_path=setup.config_path,
                         resume=args.resume, continue_last=args.continue_last,
                         name=args.name, max_turns=args.max_turns, max_budget_usd=args.max_budget_usd,
                         timeout=args.timeout, bash_timeout=config.bash_timeout, output_limit=config.output_limit,
                         auto_compact_pct=config.auto_compact_pct, tool_mode=setup.tool_mode)
    run = HeadlessRun(options, output_for(args.output))
    try:
        return asyncio.run(run.run())
    except KeyboardInterrupt:  # a second Ctrl+C while the first one's clean-up ran
        return exit_codes.INTERRUPTED
