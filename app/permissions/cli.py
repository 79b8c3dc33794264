"""`whimbrel policy check|list|review` and `whimbrel audit`: the permission engine from a shell.

    whimbrel policy check 'bash(git push --force origin main)'   # the decision and what decided it
    whimbrel policy list                                          # rules, scopes, broken ones
    whimbrel policy review [--accept]              # show / accept .whimbrel/policy.toml and .mcp.json
    whimbrel policy team set FILE | show | clear   # the team's rules in the store (reviewed per instance)
    whimbrel audit --since 1d [--json] [--tool bash] [--decision denied] [--workstream ID]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from app.vocabulary.inert import inert


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=None, help="config file (default: the user config)")
    parser.add_argument("--data-dir", type=Path, default=None, help="where the store is (default: the user data dir)")
    parser.add_argument("--workdir", type=Path, default=None, help="the workspace (default: the current directory)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="whimbrel", description="Whimbrel's permission rules and audit log.")
    verbs = parser.add_subparsers(dest="area", required=True)
    policy = verbs.add_parser("policy", help="check and list permission rules", description=(
        "Check, list and review permission rules: the config's [policy], the project's .whimbrel/policy.toml, "
        "the team's rules in the store."))
    actions = policy.add_subparsers(dest="action", metavar="ACTION")
    check = actions.add_parser("check", help="what would happen to a call, and why")
    check.add_argument("call", help="tool(argument), e.g. 'bash(git status)' or 'write_file(src/app.py)'")
    check.add_argument("--mode", default=None, help="ask, accept-edits, plan or auto (default: the config's)")
    _common(check)
    listing = actions.add_parser("list", help="every rule with its scope, and the broken ones")
    _common(listing)
    review = actions.add_parser("review", help="show the project files that start things (.whimbrel/policy.toml, "
                                               ".mcp.json) and what they would run; --accept applies them")
    review.add_argument("--accept", action="store_true", help="accept the files as shown")
    _common(review)
    team = actions.add_parser("team", help="the team's rules kept in the store: set FILE (the TOML of a "
                                           ".whimbrel/policy.toml), show, or clear them; each instance "
                                           "applies them once reviewed")
    team.add_argument("verb", choices=("set", "show", "clear"), help="set FILE, show, or clear")
    team.add_argument("file", nargs="?", type=Path, default=None, help="the rules' TOML file (set)")
    _common(team)
    for choice in actions._choices_actions:  # each action's --help opens with its line of the list
        actions.choices[choice.dest].description = choice.help[0].upper() + choice.help[1:] + "."
    audit = verbs.add_parser("audit", help="the audit log of tool calls", description=(
        "The audit log of tool calls: what was called, when, and what decided (allowed, approved, denied, refused)."))
    audit.add_argument("--since", default="1d", help="how far back: 30m, 1h, 2d, 1w (default 1d)")
    audit.add_argument("--json", action="store_true", help="one JSON object per line")
    audit.add_argument("--tool", default=None, help="only this tool (a glob such as 'mcp__*')")
    audit.add_argument("--decision", default=None, choices=("allowed", "approved", "denied", "refused"))
    audit.add_argument("--workstream", default=None, help="only this workstream (id or prefix)")
    _common(audit)
    return parser


def _context(args: argparse.Namespace):
    """(config, workspace, store engine or None) from the flags; ConfigError propagates."""
    from app.settings.config import load_config
    from app.settings.paths import chosen_config_path, default_data_dir
    from app.storage.location import choose_store

    config_path, named_by = chosen_config_path(args.config)
    config = load_config(config_path, named_by)
    workspace = (args.workdir or Path.cwd()).expanduser().resolve()
    data_dir = (args.data_dir or default_data_dir()).expanduser()
    engine = None
    chosen = choose_store(data_dir, config)  # the SQLite file, or a team's PostgreSQL (app/storage/location.py)
    if chosen.is_server or Path(chosen.location).exists():
        from app.storage.store import Store

        engine = Store(chosen.location, connect_args=chosen.connect_args).engine
    return config, workspace, engine, data_dir, config_path


def _open_store(data_dir: Path, config) -> object:
    """The store's engine, made if it is new (a write needs one)."""
    from app.storage.location import choose_store
    from app.storage.store import Store

    chosen = choose_store(data_dir, config)
    return Store(chosen.location, connect_args=chosen.connect_args).engine


def team(args: argparse.Namespace) -> int:
    """`whimbrel policy team set FILE|show|clear`: the team's rules in the store (app/permissions/team_policy.py)."""
    from datetime import datetime

    from app.permissions import team_policy

    config, _workspace, engine, data_dir, _ = _context(args)
    if args.verb == "set":
        if args.file is None:
            raise ValueError("say which file: whimbrel policy team set FILE (the TOML of a .whimbrel/policy.toml)")
        try:
            text = args.file.expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"cannot read {args.file}: {error}") from None
        notes = team_policy.store_text(engine or _open_store(data_dir, config), text)
        for note in notes:
            print(f"note: {inert(note)}", file=sys.stderr)
        print("Stored the team's policy. Every instance on this store (this one too) applies it once its user "
              "has reviewed it: `whimbrel policy review --accept`, or /policy in the window.")
        return 0
    if args.verb == "clear":
        had = engine is not None and team_policy.clear(engine)
        print("Removed the team's policy from the store." if had else "The store holds no team policy.")
        return 0
    found = team_policy.read_team(engine, data_dir)
    row = team_policy.stored(engine) if engine is not None else None
    if row is None:
        print("The store holds no team policy (`whimbrel policy team set FILE` stores one).")
        return 0
    when = datetime.fromtimestamp(row["updated_at"]).strftime("%Y-%m-%d %H:%M")
    state = {"accepted": "accepted here: its rules apply", "unreviewed": "not reviewed here: its rules do not "
             "apply until you accept it (`whimbrel policy review --accept`)"}.get(found.state, found.problem)
    print(inert(f"The team's policy, set by {found.author or 'someone'} at {when}; {state}.", multiline=False))
    print(inert(found.text).rstrip())
    return 1 if found.state == "unreadable" else 0


def _split_call(text: str) -> tuple[str, str | None]:
    found = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\((.*)\))?\s*$", text, re.S)
    if not found:
        raise ValueError(f"write the call as tool(argument), e.g. 'bash(git status)'; got {text!r}")
    return found.group(1), found.group(2)


def check(args: argparse.Namespace) -> int:
    from app.permissions.gate import Gate, protected_places
    from app.permissions.loader import load
    from app.permissions.modes import check_mode
    from app.sandbox.bwrap import available

    config, workspace, engine, data_dir, config_path = _context(args)
    tool, argument = _split_call(args.call)
    loaded = load(config, workspace, engine, data_dir=data_dir)
    mode = check_mode(args.mode or config.policy_mode)
    gate = Gate(loaded.policy, mode, protected_places(workspace, data_dir, config_path),
                sandboxed=config.policy_sandbox != "full" and available() is not None)
    view = _view(tool, argument or "", workspace)
    verdict = gate.decide(view)
    print(f"{verdict.outcome}: {inert(verdict.why)}")
    print(f"  decided by: {inert(verdict.decided_by)}")
    print(f"  mode: {mode}   risk: {verdict.risk.level} ({inert(verdict.risk.reason)})")
    if verdict.outcome == "ask" and verdict.suggestions:
        print(f"  'Always' would offer: {inert(', '.join(verdict.suggestions))}")
    if tool == "bash":
        _print_reading(argument or "", workspace)
    for problem in loaded.notices:
        print(f"  note: {inert(problem)}", file=sys.stderr)
    return 0


def _print_reading(command: str, workspace: Path) -> None:
    """How the line was read: each command bash would run (and why an allow rule cannot vouch for it),
    and the paths it writes, reads, or only decides when it runs."""
    from app.permissions.shell import Unparseable
    from app.permissions.shell_access import touched
    from app.permissions.wrappers import read_line

    try:
        _simple, effective = read_line(command)
    except Unparseable:
        return  # the why already says what could not be read
    for run in effective:
        shown = " ".join(run.argv) or (run.source.text if run.source else "")
        opaque = f"  (no allow rule can match: {'; '.join(run.opaque)})" if run.opaque else ""
        print(f"  runs: {inert(shown, multiline=False)}{inert(opaque, multiline=False)}")
    access = touched(command, workspace)
    for label, items in (("writes", access.writes), ("reads", access.reads), ("unknown", access.unknown)):
        if items:
            print(f"  {label}: {inert(', '.join(str(i) for i in items), multiline=False)}")


def _view(tool: str, argument: str, workspace: Path):
    """The call `tool(argument)` as the gate sees it (built-in tools' path and read-only facts)."""
    import os

    from app.permissions.gate import CallView
    from app.permissions.rules import PATH_TOOLS

    tool = {"read": "read_file", "edit": "write_file"}.get(tool, tool)  # a path rule's form: judged as a file tool
    if tool == "bash":
        return CallView(tool, {"command": argument}, primary="command")
    if tool in PATH_TOOLS:
        path = Path(os.path.expanduser(argument))
        path = (path if path.is_absolute() else workspace / path).resolve()
        return CallView(tool, {"path": argument}, [path], read_only=tool == "read_file")
    key = "url" if tool == "web_fetch" else "query" if tool == "search" else "value"
    return CallView(tool, {key: argument}, read_only=tool == "search", primary=key)


def listing(args: argparse.Namespace) -> int:
    from app.permissions.loader import load

    config, workspace, engine, data_dir, _ = _context(args)
    loaded = load(config, workspace, engine, data_dir=data_dir)
    print(f"{'decision':8}  {'scope':10}  {'rule':40}  where")
    for rule in loaded.policy.rules:
        print(f"{rule.decision:8}  {rule.scope:10}  {inert(rule.spec, multiline=False):40}  {inert(rule.where)}")
    if not loaded.policy.rules:
        print("(no rules: every call is decided by the mode)")
    broken = loaded.policy.problems
    if broken:
        print(f"\n{len(broken)} broken rule(s), not applied:")
        for problem in broken:
            print(f"  {inert(str(problem))}")
    for notice in loaded.notices[len(broken):]:
        print(f"\nnote: {inert(notice)}")
    return 1 if broken else 0


def review(args: argparse.Namespace) -> int:
    """Show each project file that starts things (what it would run, and its text); --accept accepts
    those waiting, as shown."""
    from app.permissions.project import accept_files, project_env, project_files
    from app.permissions.review import review_text

    from app.permissions.team_policy import read_team

    config, workspace, engine, data_dir, _ = _context(args)
    files = [found for found in project_files(workspace, engine) + ([read_team(engine, data_dir)] if engine else [])
             if found.state != "none"]
    if not files:
        print(f"There is no project file that starts things in {inert(str(workspace))} "
              "(.whimbrel/policy.toml, .mcp.json), nor a team policy in the store.")
        return 0
    print(inert(review_text(files, project_env(config))))
    for found in files:
        print(f"\n--- {inert(str(found.path))} ({found.state}) ---")
        print(inert(found.text).rstrip())
    broken = [found for found in files if found.state == "unreadable"]
    for found in broken:
        print(inert(found.problem), file=sys.stderr)
    waiting = [found for found in files if found.state == "unreviewed"]
    if args.accept and waiting:
        done = accept_files(engine or _open_store(data_dir, config), waiting)
        print("\nAccepted: " + ", ".join(inert(str(found.path)) for found in done) +
              " (its rules, hooks and MCP servers apply from now on).")
    elif waiting:
        print("\nNot accepted yet: run `whimbrel policy review --accept` to apply " +
              ", ".join(inert(str(found.path)) for found in waiting) + ".")
    return 1 if broken else 0


def audit_log(args: argparse.Namespace) -> int:
    from app.permissions.audit import parse_since, query

    _config, _workspace, engine, *_ = _context(args)
    since = parse_since(args.since)
    rows = [] if engine is None else query(engine, since=since, tool=args.tool, decision=args.decision,
                                           workstream=args.workstream)
    for row in rows:
        if args.json:
            print(json.dumps(row.as_json(), ensure_ascii=False))
        else:
            data = row.as_json()
            print(inert(f"{data['time']}  {row.workstream_id[:8]}  {row.tool:12} {row.decision:8} {row.status:9} "
                        f"{row.decided_by}", multiline=False))
    if not rows and not args.json:
        print(f"No tool calls since {args.since}.")
    return 0


def main(argv: list[str]) -> int:
    from app.settings.config import ConfigError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.area == "policy" and args.action is None:  # no action: the actions, not "required: action"
        verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        verbs.choices["policy"].print_help(sys.stderr)
        return 2
    handler = {"check": check, "list": listing, "review": review, "team": team}.get(getattr(args, "action", ""),
                                                                                  audit_log)
    from app.storage.engine import StoreUnavailable

    try:
        return handler(args)
    except (ConfigError, ValueError) as error:  # TeamPolicyError too
        print(f"whimbrel: {inert(str(error))}", file=sys.stderr)
        return 2
    except StoreUnavailable as error:
        print(f"whimbrel: {inert(str(error))}", file=sys.stderr)
        return 1
