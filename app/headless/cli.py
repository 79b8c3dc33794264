"""`whimbrel run [PROMPT]`: the argument parsing and the set-up of one headless run (no Textual here)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from app.headless import exit_codes
from app.headless.output import FORMATS, output_for, usage_failure
from app.headless.policy import MODES
from app.headless.setup import SetupProblem, add_common_arguments, setup_from

EPILOG = ("Exit codes: 0 success, 1 error, 2 usage error, 3 refused by policy, 4 limit reached "
          "(turns, budget, time), 130 interrupted. Events of --output stream-json: docs/headless.md.")


class _Parser(argparse.ArgumentParser):
    requested_format: str | None = None  # --output as the command line asked it, before parsing succeeded

    def error(self, message: str):  # argparse's own exit code 2 is USAGE already; keep its words
        self.print_usage(sys.stderr)
        sys.exit(usage_failure(self.requested_format, message, exit_codes.USAGE))


def _requested_format(argv: list[str]) -> str | None:
    """The --output value in `argv`, read before argparse (which may fail on another flag) has parsed it."""
    for index, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--output" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--output="):
            return arg.split("=", 1)[1]
    return None


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
    parser.add_argument("--input-format", choices=("text", "stream-json"), default="text",
                        help="stdin: the prompt as text (default), or stream-json: user turns, one JSON line each "
                             '({"type":"user","message":{"role":"user","content":...}}), answered in turn in one '
                             "workstream until stdin ends (needs --output stream-json)")
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


def _first_turn(args: argparse.Namespace) -> str:
    """With --input-format stream-json: the first user turn on stdin (the rest are read as the run goes)."""
    from app.headless.turns import TurnProblem, next_turn

    if args.prompt is not None:
        raise TurnProblem("--input-format stream-json reads the prompts from stdin; give no prompt argument")
    if args.output != "stream-json":
        raise TurnProblem("--input-format stream-json needs --output stream-json")
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return next_turn(sys.stdin.readline) or ""


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
    parser = build_parser()
    parser.requested_format = _requested_format(argv)
    args = parser.parse_args(argv)
    from app.headless.turns import TurnProblem
    from app.permissions.rules import RuleError
    from app.permissions.unattended import cli_rules

    def _usage(message: str) -> int:
        return usage_failure(args.output, message, exit_codes.USAGE)

    try:
        rules = cli_rules(args.allow, args.deny)
    except RuleError as error:
        return _usage(f"malformed rule {error}")
    try:
        prompt = _first_turn(args) if args.input_format == "stream-json" else _prompt(args)
    except TurnProblem as problem:
        return _usage(str(problem))
    if not prompt.strip():
        return _usage("no prompt: give it as an argument or on stdin" if args.input_format == "text" else
                      "no user turn on stdin")
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
                         auto_compact_pct=config.auto_compact_pct, tool_mode=setup.tool_mode,
                         more_turns=sys.stdin.readline if args.input_format == "stream-json" else None)
    run = HeadlessRun(options, output_for(args.output))
    try:
        return asyncio.run(run.run())
    except KeyboardInterrupt:  # a second Ctrl+C while the first one's clean-up ran
        return exit_codes.INTERRUPTED
