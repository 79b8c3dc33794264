"""`whimbrel mcp ...`: list servers, list tools, call a tool, read a resource, get a prompt — JSON on stdout.

    whimbrel mcp list
    whimbrel mcp tools|resources|templates|prompts|ping <server>
    whimbrel mcp call <server> <tool> key=value ... | --json '{"a": 1}'
    whimbrel mcp read <server> <uri>
    whimbrel mcp prompt <server> <name> key=value ...
    whimbrel mcp logout <server>

A server that asks for OAuth gets a browser sign-in (the URL is printed to stderr too); its tokens are
kept in the data dir (`mcp-oauth/`) until `logout`. `list` never starts a sign-in.

`<server>` is a configured name, an http(s):// URL (SSE when it ends in /sse) or "stdio:<command line>".
A value is parsed as JSON when it is valid JSON, else kept as a string; arguments are checked before
any server starts. Errors go to stderr with a non-zero exit: 2 for usage and config problems, 1 for a
server or call that failed; `list` exits 1
when any enabled server is not ready (its JSON still lists every server, each with its reason).
A handshake waits `--timeout` seconds, else `[mcp] cli_connect_timeout` (10 s: short for scripts).
The JSON is what the server sent (no field the SDK's models fill in by default; `call` adds `text`, the
result's text as the model would see it, and `tools` adds Whimbrel's names and schemas, each under a name
of its own). The JSON is printed as soon as it is known, before the server is stopped: a stdio server then has
0.05 s to exit on its closed stdin before its process group gets SIGTERM, and none is left running when the command
exits. Only `call`, `read` and `prompt` (which run the server's code) offer the roots (the workspace, `--workdir`).
SIGTERM and SIGHUP (like Ctrl+C) cancel the request and end the server, a stdio server's whole process group, then
exit 143 / 129 (130).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from app.vocabulary.inert import INERT_TABLE, inert

# What `inert` replaces that JSON may carry raw (DEL, C1, bidi controls, line separators; JSON escapes
# C0 itself): written as \uXXXX escapes, so the JSON means the same and a terminal obeys none of it.
JSON_ESCAPES = {code: f"\\u{code:04x}" for code in INERT_TABLE if code >= 0x7F}

USAGE_ERROR, CALL_ERROR = 2, 1
# listing verbs: what each lists (the tools verb adds Whimbrel's names and schemas of its own)
LISTINGS = {"tools": "tools", "resources": "resources", "templates": "resource templates", "prompts": "prompts"}


SERVER_HELP = ('a configured server\'s name (`whimbrel mcp list`), an http(s):// URL (SSE when it ends in /sse) '
               'or "stdio:<command line>", e.g. "stdio:npx -y @modelcontextprotocol/server-everything"')


class CliError(Exception):
    def __init__(self, message: str, code: int = CALL_ERROR) -> None:
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="whimbrel mcp", description="Inspect and call MCP servers from scripts; "
                                     "`serve` offers Whimbrel's own tools to MCP clients.")
    parser.add_argument("--config", type=Path, default=None,
                        help="config file (default: $WHIMBREL_CONFIG or config.toml in the user config dir)")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="workspace: the root offered to servers by call, read and prompt, and where .mcp.json "
                             "is read (default: cwd)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds to wait for a server's handshake or a call (handshake default: 10, "
                             "`[mcp] cli_connect_timeout`; a local server answers in well under a second, "
                             "so a script hears about a hung one quickly; calls default to `[mcp] call_timeout`)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where OAuth tokens are kept (default: $WHIMBREL_DATA_DIR or the user data dir)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def verb(name: str, about: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=about, description=about[0].upper() + about[1:] + ".")

    def server(p: argparse.ArgumentParser) -> None:
        p.add_argument("server", help=SERVER_HELP)

    verb("list", "configured servers with their status")
    for name, about in LISTINGS.items():
        server(verb(name, f"a server's {about}"))
    server(verb("ping", "a server's round-trip time in milliseconds"))
    p = verb("call", "call a tool")
    server(p)
    p.add_argument("tool", help="the tool's name, as `whimbrel mcp tools SERVER` lists it")
    p.add_argument("args", nargs="*", metavar="key=value", help="an argument; a value that is valid JSON is "
                                                                "used as JSON, else as a string")
    p.add_argument("--json", dest="json_args", metavar="ARGS", help="the arguments as one JSON object")
    p = verb("read", "read a resource")
    server(p)
    p.add_argument("uri", help="the resource's URI, as `whimbrel mcp resources SERVER` lists it")
    p = verb("prompt", "get a prompt")
    server(p)
    p.add_argument("name", help="the prompt's name, as `whimbrel mcp prompts SERVER` lists it")
    p.add_argument("args", nargs="*", metavar="key=value", help="an argument of the prompt")
    server(verb("logout", "forget a server's stored OAuth tokens"))
    # listed here; `main` hands `serve` to app/mcp/serve.py, whose parser (and heavier imports) has its options
    verb("serve", "serve Whimbrel's own tools over MCP (stdio, or HTTP with --http)")
    return parser


def parse_pairs(pairs: list[str]) -> dict[str, Any]:
    """`key=value` words into a dict; a value that is valid JSON is used as JSON, else as a string."""
    result: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CliError(f"expected key=value, got {pair!r}", USAGE_ERROR)
        try:
            result[key] = json.loads(value)
        except json.JSONDecodeError:
            result[key] = value
    return result


def _load(args: argparse.Namespace) -> tuple[dict[str, Any], Any, Path]:
    from app.settings.config import ConfigError, load_config
    from app.mcp.config import servers_from_app_config
    from app.settings.paths import chosen_config_path

    workdir = (args.workdir or Path.cwd()).expanduser().resolve()
    try:
        config = load_config(*chosen_config_path(args.config))
    except ConfigError as error:
        raise CliError(str(error), USAGE_ERROR) from None
    servers, problems = servers_from_app_config(config, workdir, project=_project_file(args, workdir))
    for problem in problems:
        print(f"whimbrel mcp: warning: {inert(problem)}", file=sys.stderr)
    return servers, config, workdir


def _project_file(args: argparse.Namespace, workdir: Path) -> Any:
    """The workspace's `.mcp.json` with its review state from the store (no store: not accepted). Nobody
    can review it here: an unaccepted file's servers never start, and the warning names the command."""
    from app.settings.paths import default_data_dir
    from app.permissions.project import mcp_path, read_mcp_file

    db = (args.data_dir or default_data_dir()).expanduser() / "whimbrel.db"
    engine = None
    if db.exists() and mcp_path(workdir).exists():  # the store (SQLAlchemy) only when there is a file to judge
        from app.storage.store import Store

        try:
            engine = Store(db).engine
        except Exception as error:  # noqa: BLE001 - an unreadable store only means nothing counts as accepted
            print(f"whimbrel mcp: warning: {db} could not be opened ({inert(str(error))[:200]}); "
                  "the project's .mcp.json counts as not accepted", file=sys.stderr)
    return read_mcp_file(workdir, engine)


async def _no_sign_in(request: Any) -> None:
    from app.mcp.features import Declined

    raise Declined(f"sign-in needed; run `whimbrel mcp tools {request.server}` to sign in")


# what each verb needs listed before it runs (`call` calls by name; the others print the list they name)
VERB_LISTS = {"tools": {"tools"}, "resources": {"resources"}, "templates": {"resources"}, "read": set(),
              "prompts": {"prompts"}, "prompt": set(), "call": set(), "ping": set()}
# the verbs that run the server's own code (a tool, a resource, a prompt), which may ask for the roots: only they
# offer the roots capability. A server offered roots may ask for them at any moment, and some then outlive a closed
# stdin waiting for the answer (server-everything asks 350 ms after the handshake), so a listing is not offered them.
ROOTS_VERBS = {"call", "read", "prompt"}


def _manager(servers: list[Any], config: Any, workdir: Path, args: argparse.Namespace) -> Any:
    from app.mcp.features import ClientHooks
    from app.mcp.manager import McpManager
    from app.mcp.oauth.hooks import browser_hook
    from app.settings.paths import default_data_dir

    hooks = ClientHooks(authorization=_no_sign_in if args.command == "list" else browser_hook(),
                        roots_enabled=args.command in ROOTS_VERBS)
    manager = McpManager(servers, workspace=workdir, refresh_interval=0, hooks=hooks,
                         data_dir=args.data_dir or default_data_dir(),
                         call_timeout=args.timeout or config.mcp_call_timeout,
                         connect_timeout=_connect_timeout(args, config),
                         retry=False)  # one look: a failed server is reported, never started again
    manager.initial_lists = VERB_LISTS.get(args.command, manager.initial_lists)  # `list` counts everything
    manager.follow_changes = False  # one look: a list_changed after it is not re-listed
    return manager


def _connect_timeout(args: argparse.Namespace, config: Any) -> float:
    """Seconds a handshake may take: --timeout, else the CLI's own (shorter) config default."""
    return args.timeout or config.mcp_cli_connect_timeout


def _list_rows(manager: Any) -> tuple[list[dict[str, Any]], int]:
    """Every server's summary, and exit code 1 when an enabled one is not ready."""
    from app.mcp.server_state import AUTHORIZING, CONNECTING, DISABLED, READY

    rows = [state.summary() for state in manager.servers.values()]
    for row in rows:
        if row["status"] in (CONNECTING, AUTHORIZING) and not row["reason"]:
            row["reason"] = f"timed out: no answer within {manager.connect_timeout:g}s"
    broken = [row for row in rows if row["status"] not in (READY, DISABLED)]
    for row in broken:
        print(f"whimbrel mcp: {row['name']}: {row['status']}: {row['reason'] or 'no reason given'}",
              file=sys.stderr)
    return rows, CALL_ERROR if broken else 0


def request_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The arguments of `call` and `prompt` (key=value words and --json), checked before any server
    starts: a bad one is a usage error even when the server would never answer."""
    arguments = parse_pairs(getattr(args, "args", None) or [])
    if getattr(args, "json_args", None) is not None:
        try:
            extra = json.loads(args.json_args)
        except json.JSONDecodeError as exc:
            raise CliError(f"--json is not valid JSON: {exc.msg}", USAGE_ERROR) from None
        if not isinstance(extra, dict):
            raise CliError("--json must be a JSON object", USAGE_ERROR)
        arguments.update(extra)
    return arguments


def _listing(state: Any, verb: str) -> list[dict[str, Any]]:
    """What `resources`, `templates` and `prompts` print: the server's entries as JSON objects."""
    from app.mcp import convert

    entries = {"resources": state.resources, "templates": state.templates, "prompts": state.prompts}[verb]
    return [convert.dump_sent(entry) for entry in entries]


async def _run(args: argparse.Namespace, stopping: "_Stopping") -> int:
    """Run one verb and print its JSON as soon as it is known: the servers are stopped after, not before."""
    from app.mcp.config import McpConfigError, parse_server_spec

    arguments = request_arguments(args)
    configured, config, workdir = _load(args)
    if args.command == "list":
        _import_sdk(args)
        manager = _manager(list(configured.values()), config, workdir, args)
        manager.start()
        try:
            try:  # a handshake past its deadline settles as failed, so this returns by then
                await manager.wait_settled(timeout=_connect_timeout(args, config) + 1)
            except asyncio.TimeoutError:
                pass
            return _show(*_list_rows(manager))
        finally:
            await _stop(manager, stopping)
    try:
        server = parse_server_spec(args.server, configured)
    except McpConfigError as error:
        raise CliError(str(error), USAGE_ERROR) from None
    server.enabled = True
    if args.command == "logout":
        return _show({"server": server.name, "signed_out": _manager([server], config, workdir, args)
                      .sign_out(server.name)}, 0)
    manager = _manager_with_server_started([server], config, workdir, args)
    _import_sdk(args)
    manager.start()
    try:
        from app.mcp.manager import McpUnavailable
        from app.mcp.server_state import CONNECTING

        try:
            state = await manager.wait_ready(server.name, timeout=_connect_timeout(args, config) + 1)
        except McpUnavailable as error:
            still = manager.servers[server.name].status == CONNECTING
            raise CliError(f"MCP server '{server.name}' timed out: no answer within {manager.connect_timeout:g}s"
                           if still else str(error)) from None
        return _show(*await _answer(args, manager, server.name, state, arguments))
    finally:
        await _stop(manager, stopping)


def _import_sdk(args: argparse.Namespace) -> None:
    """No frame to paint here: import the SDK now, so a handshake's deadline is the server's alone. In the command
    line's own process, without the SDK's server half (app/mcp/sdk_client.py)."""
    from app.mcp.sdk_client import import_client_only, import_whole

    if not getattr(args, "own_process", False):
        import_whole()
        return
    import gc

    # The import makes some hundred thousand objects, and the collections they set off (each over all those made
    # so far) are a sixth of its CPU: none runs during it, and what it made is kept out of later ones.
    gc.disable()
    try:
        import_client_only()
    finally:
        gc.freeze()
        gc.enable()


def _manager_with_server_started(servers: list[Any], config: Any, workdir: Path, args: argparse.Namespace) -> Any:
    """The manager of one server, a stdio one started first: before the manager and the SDK are imported, so
    the server's start-up overlaps Whimbrel's (app/mcp/prespawn.py)."""
    import tempfile

    from app.mcp.prespawn import discard_now, spawn

    stderr = tempfile.TemporaryFile()
    process = spawn(servers[0], workdir, stderr)
    try:
        manager = _manager(servers, config, workdir, args)
    except BaseException:
        if process is not None:
            discard_now(process)
        stderr.close()
        raise
    state = manager.servers[servers[0].name]
    state.stderr, state.prespawned = stderr, process
    return manager


async def _answer(args: argparse.Namespace, manager: Any, name: str, state: Any,
                  arguments: dict[str, Any]) -> tuple[Any, int]:
    """What one verb prints, and its exit code."""
    from app.mcp import convert
    from tools.errors import ToolError

    try:
        if args.command == "tools":
            specs = {spec.name: spec for spec in state.specs}
            rows = []
            for tool in state.tools:
                row = convert.dump_sent(tool)
                model_name = next((n for n, t in state._tool_names.items() if t == tool.name), None)
                row["whimbrelName"] = model_name
                if model_name in specs:
                    row["functionParameters"] = specs[model_name].parameters
                if tool.name in state.schema_problems:
                    row["schemaProblem"] = state.schema_problems[tool.name]
                rows.append(row)
            return rows, 0
        if args.command in ("resources", "templates", "prompts"):
            return _listing(state, args.command), 0
        if args.command == "ping":
            return {"server": name, "ms": round(await manager.ping(name), 3)}, 0
        if args.command == "call":
            result = await manager.call_tool_raw(name, args.tool, arguments)
            out = convert.dump_sent(result)
            text, is_error = convert.call_result_to_text(result)
            out["text"] = text
            if is_error:
                print(inert(f"whimbrel mcp: tool {args.tool!r} reported an error: {text}"), file=sys.stderr)
            return out, CALL_ERROR if is_error else 0
        if args.command == "read":
            return convert.dump_sent(await manager.read_resource(name, args.uri)), 0
        if args.command == "prompt":
            return convert.dump_sent(await manager.get_prompt(name, args.name, arguments)), 0
    except ToolError as error:
        raise CliError(str(error)) from None
    raise CliError(f"unknown command {args.command!r}", USAGE_ERROR)


def _show(output: Any, code: int) -> int:
    """Print the JSON answer now (a script reads it while the server is still being stopped); the exit code."""
    try:
        shown = json.dumps(output, indent=2, ensure_ascii=False, default=str)
        sys.stdout.write(shown.translate(JSON_ESCAPES) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `| head` closed the pipe: not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code


class _Stopping:
    """SIGTERM and SIGHUP end the verb as Ctrl+C does: the running request is cancelled, the servers stopped
    (a stdio server's whole process group, at once), and the exit code is 128 + the signal's number."""

    SIGNALS = ("SIGTERM", "SIGHUP")

    def __init__(self) -> None:
        self.signal: int | None = None

    async def run(self, coro: Any) -> int:
        import signal

        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        installed = []

        def received(number: int) -> None:
            if self.signal is None:
                self.signal = number
                task.cancel()

        for name in self.SIGNALS:
            number = getattr(signal, name, None)
            if number is None:
                continue
            try:
                loop.add_signal_handler(number, received, number)
                installed.append(number)
            except (ValueError, RuntimeError, NotImplementedError):
                pass
        try:
            return await coro
        except asyncio.CancelledError:
            if self.signal is None:
                raise
            return 128 + self.signal
        finally:
            for number in installed:
                loop.remove_signal_handler(number)


# Seconds a stdio server has to exit once its stdin is closed, before its group gets SIGTERM (SIGKILL 1 s later).
# The answer is printed by then and the user waits only for this: a server that exits on a closed stdin at once
# does so on its own terms; one that tidies up slowly (a Python server's interpreter teardown takes ~0.3 s, more on
# a loaded machine) or waits for an answer it will never get is ended, as a server that outlives its client is
# (its SIGTERM handler, if it has one, still runs). The SDK and the Inspector CLI wait up to 2 s.
EXIT_GRACE = 0.05


async def _stop(manager: Any, stopping: _Stopping) -> None:
    """Stop the servers. The answer is printed already and nothing more is asked of them, so a stdio server
    that has not exited within EXIT_GRACE of its stdin closing is ended with its process group; on a signal,
    at once."""
    from app.mcp.prespawn import discard

    if stopping.signal is not None:
        await manager.end_processes()
        await manager.stop()
    else:
        stopped = asyncio.ensure_future(manager.stop())
        done, _ = await asyncio.wait([stopped], timeout=EXIT_GRACE)
        if not done:
            await manager.end_processes()
        await stopped
    for state in manager.servers.values():  # started early, but never connected to
        process, state.prespawned = state.prespawned, None
        if process is not None:
            await discard(process)


def main(argv: list[str], *, own_process: bool = False) -> int:
    """Run `whimbrel mcp ...`. `own_process`: this is the command line's own process, which ends when the verb
    does (the SDK may then be imported without its server half)."""
    if argv[:1] == ["serve"]:  # serving Whimbrel's own tools (app/mcp/serve.py)
        from app.mcp.serve import main as serve_main
        return serve_main(argv[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage error
        return int(exc.code or 0) if exc.code != 0 else 0
    args.own_process = own_process
    import logging

    logging.getLogger("mcp").addHandler(logging.NullHandler())  # the SDK's tracebacks: the reason is reported
    stopping = _Stopping()
    try:
        return asyncio.run(stopping.run(_run(args, stopping)))
    except CliError as error:
        print(inert(f"whimbrel mcp: {error}"), file=sys.stderr)
        return error.code
    except KeyboardInterrupt:
        return 130
