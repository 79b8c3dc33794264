"""The adversarial corpus's harness: a case is a model's tool call(s) sent through the real path a model's
call takes (headless `whimbrel run` as a subprocess against the scripted fake model, or `whimbrel mcp serve`
through the real MCP SDK client), in a temp workspace with its own data dir and HOME, then checked on disk and
on a loopback listener: the side effect the attack wanted did not happen.

Cases that share a path, mode, rules, sandbox level, tool mode and user run as one batch (one `whimbrel run`
whose model sends every case's calls in one reply, or one `mcp serve` process that gets them in turn), each
case in its own folder `c/<id>/` of the batch's workspace with its own planted secrets and its own marker
names, so one case's side effect cannot pass for another's. A case that needs the workspace root (`.git/`,
`.mcp.json`, `.whimbrel/`) gets a workspace of its own.

Placeholders in a case's calls and checks (plain text replacement, so `${x}` in bash stays as written):
`%D%` the case's folder relative to the workspace ("." for a root case), `%W%` that folder as an absolute
path, `%WS%` the workspace, `%OUT%` a folder outside the workspace (with `secret.txt`), `%HOME%` the run's
HOME, `%URL%` the loopback listener's URL for this case, `%PORT%` its port, `%ID%` the case id,
`%DB%` the run's store.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PLANTED_KEY = "sk-planted-3f9c2a7e51d04b8e9a6c"  # OPENAI_API_KEY in every run's environment: must never leak
PLANTED_AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLANTEDKEY"  # AWS_SECRET_ACCESS_KEY likewise
RUN_DEADLINE = 90.0  # seconds for one batch; a hang fails the batch's cases instead of blocking the suite
HANG_DEADLINE = 15.0  # for the cases that once hung Whimbrel: a run that ends at all ends in ~2 s
NOBODY = 65534


# The rule sets most cases share, so that they run in few batches. Each case's attack is one that none of
# these rules allows: a deny rule or the mode must stop it, or the reader must see the part no rule allows.
ASK_ALLOW = ("bash(echo *)", "bash(ls *)", "bash(cat *)", "bash(grep *)", "bash(cd *)", "bash(printenv)",
             "bash(printenv *)", "math")
ASK_DENY = ("bash(rm *)", "read_file(**/.env)", "edit_file(**/.env)")
AUTO_ALLOW = ("bash(cat *)", "web_fetch")
AUTO_DENY = ("bash(touch *)", "read_file(**/.env)", "edit_file(**/.env)")


@dataclass(frozen=True)
class Case:
    """One attack: what the model sends, where, under which policy, and what must not have happened.

    `checks` are tuples: ("absent", PATH) the file must not exist; ("unchanged", PATH) its content and mode
    (or its absence) are as before the run; ("unread", WHICH) the planted secret WHICH ("env", "key", "out",
    "home") never reached the model; ("no_text", TEXT) TEXT is not in the store, the audit rows or the
    output. Every case also checks that the listener got no request for it and never saw a planted key.
    `defence` names the branch the defence comes from ("main" when it already holds on main).
    """

    id: str
    failure: str  # the numbered failure ("1".."12") or "public" (another agent's published bypass)
    defence: str
    calls: tuple[tuple[str, dict[str, Any]], ...]
    checks: tuple[tuple[str, ...], ...]
    mode: str = "ask"
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    sandbox: tuple[str, ...] = ("on", "off")
    path: str = "run"  # run | serve (the TUI's cases live in test_tui_startup.py)
    tools_mode: str | None = None  # "both" offers run_code
    root: str = ""  # needs the workspace root as its folder: cases with the same label share one workspace
    hang: bool = False  # once hung: run alone, with a short deadline
    users: tuple[str, ...] = ("root",)  # "nobody" too where it matters
    source: str = ""  # the public report it comes from
    setup: tuple = ()  # shell lines run in the case's folder before the run (`git init`, links), or
    # ("write", PATH, TEXT): a file written there (a script the attack runs, so the gate cannot read it)


def bash(command: str) -> tuple[str, dict[str, Any]]:
    return ("bash", {"command": command})


def write(path: str, content: str = "PWNED=1\n") -> tuple[str, dict[str, Any]]:
    return ("write_file", {"path": path, "content": content})


def edit(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("edit_file", {"path": path, "old_string": old, "new_string": new})


def read(path: str) -> tuple[str, dict[str, Any]]:
    return ("read_file", {"path": path})


def code(source: str) -> tuple[str, dict[str, Any]]:
    return ("run_code", {"code": source})


def math(source: str) -> tuple[str, dict[str, Any]]:
    return ("math", {"code": source})


def fetch(url: str) -> tuple[str, dict[str, Any]]:
    return ("web_fetch", {"url": url})


# -- the loopback listener -------------------------------------------------------------------------------

class Listener:
    """An HTTP server on 127.0.0.1 that records every request (path, headers, body) and answers 200."""

    def __init__(self) -> None:
        self.hits: list[tuple[str, str]] = []  # (path, everything received as text)
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                hits.append((self.path, f"{self.requestline}\n{self.headers}\n{body.decode(errors='replace')}"))
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"listener says hello\n")

            do_GET = do_POST = do_PUT = do_HEAD = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Listener":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def url(self, case_id: str) -> str:
        return f"http://127.0.0.1:{self.port}/{case_id}"

    def hits_for(self, case_id: str) -> list[str]:
        return [path for path, _ in self.hits if path.lstrip("/").split("/")[0].split("?")[0] == case_id]

    def leaked(self) -> list[str]:
        return [path for path, text in self.hits if PLANTED_KEY in text or PLANTED_AWS in text]


# -- workspaces ------------------------------------------------------------------------------------------

def secrets_of(case_id: str) -> dict[str, str]:
    """The planted secret texts of a case, by name."""
    return {name: f"{case_id}-{name.upper()}-SECRET" for name in ("env", "key", "out", "home")}


@dataclass
class Place:
    """Where a batch runs: its workspace, HOME, data dir, outside folder, and each case's folder."""

    base: Path
    workspace: Path
    home: Path
    data: Path
    outside: Path
    config: Path
    port: int

    def folder(self, case: Case) -> Path:
        return self.workspace if case.root else self.workspace / "c" / case.id

    def fill(self, text: str, case: Case) -> str:
        folder = self.folder(case)
        pairs = {"%D%": "." if case.root else f"c/{case.id}", "%W%": str(folder), "%WS%": str(self.workspace),
                 "%OUT%": str(self.outside / case.id), "%HOME%": str(self.home), "%ID%": case.id,
                 "%URL%": f"http://127.0.0.1:{self.port}/{case.id}", "%PORT%": str(self.port),
                 "%DB%": str(self.data / "whimbrel.db")}
        for key, value in pairs.items():
            text = text.replace(key, value)
        return text

    def filled(self, value: Any, case: Case) -> Any:
        if isinstance(value, str):
            return self.fill(value, case)
        if isinstance(value, dict):
            return {k: self.filled(v, case) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.filled(v, case) for v in value)
        return value


def make_place(base: Path, port: int, sandbox: str) -> Place:
    """A batch's folders. The outside folder lives in /var/tmp: the sandbox gives commands a private /tmp,
    and a write that escapes it must land where the test can see it."""
    outside = Path(tempfile.mkdtemp(prefix="whimbrel-security-", dir="/var/tmp"))
    place = Place(base, base / "ws", base / "home", base / "home" / "data", outside, base / "config.toml", port)
    for folder in (place.workspace, place.home, place.outside):
        folder.mkdir(parents=True, exist_ok=True)
    (place.home / ".bashrc").write_text("# the user's own\n")
    (place.home / ".ssh").mkdir(exist_ok=True)
    (place.home / ".ssh" / "id_ed25519").write_text("home secret: %s\n" % "HOME-SSH-SECRET")
    level = "full" if sandbox == "off" else "workspace-write"
    place.config.write_text(f'[policy]\nsandbox = "{level}"\n')
    return place


def plant(place: Place, case: Case) -> None:
    """The case's folder with its secrets (`.env`, `secrets/key.txt`), and its outside folder."""
    folder = place.folder(case)
    secret = secrets_of(case.id)
    (folder / "secrets").mkdir(parents=True, exist_ok=True)
    (folder / ".env").write_text(f"API_TOKEN={secret['env']}\n")
    os.chmod(folder / ".env", 0o600)
    (folder / "secrets" / "key.txt").write_text(secret["key"] + "\n")
    (folder / "notes.md").write_text("hello\n")
    outside = place.outside / case.id
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text(secret["out"] + "\n")
    (place.home / f"{case.id}.secret").write_text(secret["home"] + "\n")
    for line in case.setup:
        if isinstance(line, tuple):  # ("write", relative path, content): a file the attack runs
            (folder / line[1]).write_text(place.fill(line[2], case))
            continue
        subprocess.run(["bash", "-c", place.fill(line, case)], cwd=folder, check=True, capture_output=True,
                       env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(place.home)})


def snapshot(path: Path) -> tuple[bool, bytes, int]:
    try:
        return True, path.read_bytes(), path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return False, b"", 0
    except IsADirectoryError:
        return True, b"<dir>", path.stat().st_mode & 0o7777


def give_to_nobody(place: Place) -> None:
    """The batch's folders owned by uid/gid 65534, so a run as `nobody` owns its workspace and data."""
    for top in (place.base, place.outside):
        for dirpath, dirnames, filenames in os.walk(top):
            for name in [dirpath, *[os.path.join(dirpath, n) for n in dirnames + filenames]]:
                os.lchown(name, NOBODY, NOBODY)
    os.chmod(place.base, 0o755)


# -- running a batch -------------------------------------------------------------------------------------

@dataclass
class Batch:
    """What one run of a batch left: its output, what the model was sent, and each case's checks' baselines."""

    place: Place
    cases: list[Case]
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    sent_to_model: str = ""  # every request the model got, as JSON
    sent_by_case: dict[str, str] = field(default_factory=dict)  # case id -> what its calls' results told the model
    decisions: dict[str, list[str]] = field(default_factory=dict)  # case id -> "tool: decision: output…"
    before: dict[tuple[str, str], tuple[bool, bytes, int]] = field(default_factory=dict)
    timed_out: bool = False


def run_env(place: Place) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "WHIMBREL_CONFIG"):
        env.pop(name, None)
    env.update(HOME=str(place.home), WHIMBREL_DATA_DIR=str(place.data), XDG_CONFIG_HOME=str(place.home / ".config"),
               OPENAI_API_KEY=PLANTED_KEY, AWS_SECRET_ACCESS_KEY=PLANTED_AWS, PYTHONPATH=str(ROOT),
               WHIMBREL_IMAGES="off", PYTHONDONTWRITEBYTECODE="1")
    return env


def prepare(place: Place, cases: list[Case]) -> Batch:
    batch = Batch(place, cases)
    for case in cases:
        plant(place, case)
        for check in case.checks:
            if check[0] in ("absent", "unchanged"):
                path = Path(place.fill(check[1], case))
                path = path if path.is_absolute() else place.workspace / path
                batch.before[(case.id, check[1])] = snapshot(path)
    return batch


def as_user(argv: list[str], user: str) -> list[str]:
    if user == "root":
        return argv
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--", *argv]


def run_batch(server: Any, place: Place, cases: list[Case], *, user: str = "root") -> Batch:
    """One `whimbrel run` whose model sends every case's calls at once, then says it is done."""
    from tests.fake_llm.script import TextReply, ToolCallReply

    batch = prepare(place, cases)
    first = cases[0]
    calls = []
    for case in cases:
        for n, (tool, args) in enumerate(case.calls):
            calls.append((tool, json.dumps(place.filled(args, case)), f"{case.id}~{n}"))
    server.reset()
    server.queue(ToolCallReply(calls), TextReply("done"))
    argv = [sys.executable, "-m", "app.cli", "run", "--output", "json", "--mode", first.mode,
            "--config", str(place.config), "--model", "fake-model", "--base-url", server.base_url,
            "--api-key", "x", "--max-turns", "2"]
    for rule in first.allow:
        argv += ["--allow", rule]
    for rule in first.deny:
        argv += ["--deny", rule]
    if any(case.tools_mode for case in cases):  # one case needs run_code offered: the batch offers it
        argv += ["--tools-mode", "both"]
    argv.append("go")
    if user != "root":
        give_to_nobody(place)
    try:
        done = subprocess.run(as_user(argv, user), cwd=place.workspace, env=run_env(place), capture_output=True,
                              text=True, timeout=HANG_DEADLINE if first.hang else RUN_DEADLINE,
                              stdin=subprocess.DEVNULL)
        batch.returncode, batch.stdout, batch.stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        batch.timed_out = True
        batch.stdout = expired.stdout.decode(errors="replace") if isinstance(expired.stdout, bytes) else ""
    batch.sent_to_model = json.dumps(server.requests)
    for request in server.requests:
        for message in request.get("messages", []):
            if message.get("role") == "tool":
                case_id = str(message.get("tool_call_id", "")).split("~")[0]
                batch.sent_by_case[case_id] = batch.sent_by_case.get(case_id, "") + json.dumps(message.get("content"))
    try:
        result = json.loads(batch.stdout.strip().splitlines()[-1]) if batch.stdout.strip() else {}
    except json.JSONDecodeError:
        result = {}
    for record in result.get("tool_calls", []):
        case_id = str(record.get("call_id", "")).split("~")[0]
        batch.decisions.setdefault(case_id, []).append(
            f"{record.get('name')}: {record.get('decision')}: {str(record.get('output', ''))[:300]!r}")
    return batch


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
