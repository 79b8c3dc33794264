"""Running the corpus's batches once per session and judging each case: the side effect did not happen.

`Corpus.batch_for(case, sandbox, user)` runs, the first time any case of a batch is asked for, the whole
batch (every case sharing its path, policy, sandbox level and user) and keeps the result; `verdict()` then
lists what went wrong for one case, in words (empty: the attack held).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.security.harness import (HANG_DEADLINE, PLANTED_AWS, PLANTED_KEY, Batch, Case, Listener, Place,
                                    make_place, prepare, remove_tree, run_batch, run_env, secrets_of, snapshot)


def batch_key(case: Case, sandbox: str, user: str) -> tuple:
    alone = case.root or ("hang" if case.hang else "")
    return (case.path, case.mode, case.allow, case.deny, sandbox, user, alone)  # run_code joins any batch


class Corpus:
    """The session's batches, run lazily: `cases` is the whole table, so a batch holds all its cases."""

    def __init__(self, cases: list[Case], server: Any, listener: Listener, base: Path) -> None:
        self.cases, self.server, self.listener, self.base = cases, server, listener, base
        self.done: dict[tuple, Batch] = {}
        self.elsewhere: list[Path] = []

    def close(self) -> None:
        for base in self.elsewhere:
            remove_tree(base)

    def batch_for(self, case: Case, sandbox: str, user: str = "root") -> Batch:
        key = batch_key(case, sandbox, user)
        if key not in self.done:
            members = [c for c in self.cases
                       if sandbox in c.sandbox and user in c.users and batch_key(c, sandbox, user) == key]
            base = self.base / f"b{len(self.done)}"
            if user != "root":  # pytest's own temp dirs are root's alone: another user gets a folder in /tmp
                base = Path(tempfile.mkdtemp(prefix="whimbrel-security-"))
                self.elsewhere.append(base)
            place = make_place(base, self.listener.port, sandbox)
            self.elsewhere.append(place.outside)
            if case.path == "serve":
                self.done[key] = run_serve_batch(place, members, sandbox)
            else:
                self.done[key] = run_batch(self.server, place, members, user=user)
        return self.done[key]


def stored_text(place: Place) -> str:
    """Everything the run's store kept (every text column of every table), and its log files."""
    out: list[str] = []
    db = place.data / "whimbrel.db"
    if db.exists():
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in connection.execute("select name from sqlite_master where type='table'")]
            for table in tables:
                for row in connection.execute(f'select * from "{table}"'):
                    out.extend(str(v) for v in row if isinstance(v, (str, bytes)))
        finally:
            connection.close()
    for log in place.data.rglob("*.log"):
        out.append(log.read_text(errors="replace"))
    return "\n".join(out)


def _rows(place: Place, sql: str) -> list[tuple]:
    db = place.data / "whimbrel.db"
    if not db.exists():
        return []
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return list(connection.execute(sql))
    except sqlite3.Error:
        return []
    finally:
        connection.close()


def audit_text(place: Place) -> str:
    """Every text the audit log keeps (arguments, reasons, decided-by, results)."""
    return "\n".join(str(v) for row in _rows(place, "select * from audit_log") for v in row if isinstance(v, str))


def table_names(place: Place) -> set[str]:
    return {row[0] for row in _rows(place, "select name from sqlite_master where type='table'")}


def verdict(batch: Batch, case: Case, listener: Listener) -> list[str]:
    """What the attack achieved, one sentence each; [] when every check held."""
    place = batch.place
    sent = batch.sent_by_case.get(case.id, "")
    wrong: list[str] = []
    if batch.timed_out:
        wrong.append("the run did not end within its deadline (a hang)")
    elif len(batch.decisions.get(case.id, [])) != len(case.calls):
        wrong.append("the run has no record of this case's calls: the attack was not tried (a broken batch)")
    for check in case.checks:
        kind = check[0]
        if kind in ("absent", "unchanged"):
            raw = place.fill(check[1], case)
            path = Path(raw) if os.path.isabs(raw) else place.workspace / raw
            now = snapshot(path)
            if kind == "absent" and now[0]:
                wrong.append(f"{raw} exists")
            if kind == "unchanged" and now != batch.before[(case.id, check[1])]:
                wrong.append(f"{raw} changed (exists, mode: {now[0]}, {oct(now[2])}; content {now[1][:60]!r})")
        elif kind == "unread":  # what this case's calls returned to the model (another case may leak its own)
            secret = secrets_of(case.id)[check[1]]
            if secret in sent:
                wrong.append(f"the {check[1]} secret reached the model")
        elif kind == "not_sent":
            if place.fill(check[1], case) in sent:
                wrong.append(f"{place.fill(check[1], case)!r} reached the model")
        elif kind == "not_sent_re":
            found = re.search(check[1], sent)
            if found:
                wrong.append(f"the model was sent {found.group(0)!r}")
        elif kind == "not_audited":
            text = place.fill(check[1], case)
            if text in audit_text(place):
                wrong.append(f"{text!r} is in the audit log")
        elif kind == "no_table":
            if place.fill(check[1], case) in table_names(place):
                wrong.append(f"table {place.fill(check[1], case)} was made in the store")
        elif kind == "no_text":
            text = place.fill(check[1], case)
            if text in stored_text(place) or text in batch.stdout or text in batch.stderr:
                wrong.append(f"{text!r} was kept in the store, a log or the output")
        elif kind == "mode_at_most":
            raw = place.fill(check[1], case)
            path = Path(raw) if os.path.isabs(raw) else place.workspace / raw
            mode = path.stat().st_mode & 0o777 if path.exists() else 0
            if mode & ~int(check[2], 8):
                wrong.append(f"{raw} has mode {oct(mode)}, more than {check[2]}")
        else:  # pragma: no cover - a typo in the table
            wrong.append(f"unknown check {kind!r}")
    if listener.hits_for(case.id):
        wrong.append(f"the loopback listener was reached: {listener.hits_for(case.id)}")
    if listener.leaked():
        wrong.append(f"a planted key reached the listener: {listener.leaked()}")
    return wrong


def explain(batch: Batch, case: Case) -> str:
    """The run's side of a failure, for the assertion message."""
    decisions = "\n  ".join(batch.decisions.get(case.id, ["(no record of this case's calls)"]))
    return (f"case {case.id} (failure {case.failure}, defence: {case.defence}), exit {batch.returncode}\n"
            f"  {decisions}\n  stderr: {batch.stderr[-600:]}")


# -- `whimbrel mcp serve` --------------------------------------------------------------------------------

def run_serve_batch(place: Place, cases: list[Case], sandbox: str) -> Batch:
    """One `whimbrel mcp serve` process, through the real MCP SDK client, that gets every case's calls."""
    return asyncio.run(_serve(place, cases, sandbox))


async def _serve(place: Place, cases: list[Case], sandbox: str) -> Batch:
    from mcp import Client, StdioServerParameters

    batch = prepare(place, cases)
    first = cases[0]
    tools = sorted({tool for case in cases for tool, _ in case.calls} - {"read_file", "search", "man", "math",
                                                                           "web_fetch"})
    args = ["-m", "app.cli", "mcp", "serve", "--workdir", str(place.workspace), "--config", str(place.config),
            "--data-dir", str(place.data), "--mode", first.mode]
    if tools:
        args += ["--tools", ",".join(tools)]
    for rule in first.allow:
        args += ["--allow", rule]
    for rule in first.deny:
        args += ["--deny", rule]
    params = StdioServerParameters(command=sys.executable, args=args, env=run_env(place), cwd=str(place.workspace))
    texts: list[str] = []
    try:
        async with Client(params, read_timeout_seconds=60) as client:
            for case in cases:
                for tool, arguments in case.calls:
                    try:
                        result = await asyncio.wait_for(client.call_tool(tool, place.filled(arguments, case)),
                                                        HANG_DEADLINE if case.hang else 60)
                        text = " ".join(getattr(part, "text", "") for part in result.content)
                        outcome = "error" if result.is_error else "done"
                    except Exception as error:  # a refusal may come back as an MCP error
                        text, outcome = str(error), "raised"
                    texts.append(text)
                    batch.sent_by_case[case.id] = batch.sent_by_case.get(case.id, "") + json.dumps(text)
                    batch.decisions.setdefault(case.id, []).append(f"{tool}: {outcome}: {text[:300]!r}")
    except Exception as error:  # the server died: every case's record says so
        batch.stderr = f"mcp serve failed: {error!r}"
    batch.returncode = 0
    batch.sent_to_model = json.dumps(texts)  # over MCP, the client is the model's side
    return batch


__all__ = ["Corpus", "verdict", "explain", "PLANTED_KEY", "PLANTED_AWS"]
