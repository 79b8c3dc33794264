"""watch: commands polled in the background until a condition holds; then their workstream gets
a message and a turn. The `watch` tool (per session) writes rows; one `WatchRunner` per app polls
them, so watches survive a restart (an overdue one is polled once at start)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

from app.sandbox import jail
from app.storage import watch_store
from tools.context import ToolContext
from tools.errors import ToolError
from tools.watch_expr import evaluate, parse

MIN_INTERVAL, MAX_INTERVAL, DEFAULT_INTERVAL = 10.0, 24 * 3600.0, 300.0
MAX_ACTIVE = 5
DEFAULT_MAX_POLLS = 100
OUTPUT_LIMIT = 64_000
COMMAND_TIMEOUT = 120.0
MESSAGE_OUTPUT = 4_000
Fire = Callable[[str, str], Awaitable[None]]


@dataclass(frozen=True)
class PollPermit:
    """The permission gate's answer for one poll: refused (why), or where and how confined it runs."""

    refused: str | None = None
    workspace: Path | None = None  # the workstream's (its worktree, if it has one); None: the runner's
    wrap: Callable[[list[str]], jail.Launch] | None = None  # the sandbox around the command
    record: Callable[[str, float | None], Awaitable[None]] | None = None  # the audit row: (status, seconds)


Vet = Callable[[dict[str, Any]], Awaitable[PollPermit]]
log = logging.getLogger("whimbrel")


def parse_interval(text: Any) -> float:
    """'30s', '5m', '1h', '1d' or a number of seconds; ToolError outside 10 s … 24 h."""
    if text is None or text == "":
        return DEFAULT_INTERVAL
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", str(text).lower())
    if not match:
        raise ToolError(f"watch: poll_every {text!r} is not a duration such as 30s, 5m or 1h")
    seconds = float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]
    if not MIN_INTERVAL <= seconds <= MAX_INTERVAL:
        raise ToolError("watch: poll_every must be between 10s and 24h")
    return seconds


class WatchTool:
    """The `watch` tool of one session: create, list and cancel its workstream's watches."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> str:
        store, workstream_id = self.session.store, self.session.workstream_id
        if not hasattr(store, "run") or not workstream_id:
            raise ToolError("watch needs the conversation store, which this session does not have")
        action = args.get("action") or "create"
        if action == "list":
            rows = await store.run(watch_store.active, store.store, workstream_id)
            if not rows:
                return "No active watches."
            return "\n".join(f"- {r['name']}: `{r['command']}` every {r['interval']:g}s, "
                             f"{'until ' + r['stop_on'] if r['stop_on'] else 'until its output changes'}; "
                             f"{r['polls']} poll(s) so far" for r in rows)
        if action == "cancel":
            ref = str(args.get("name") or "").strip()
            row = await store.run(watch_store.find, store.store, workstream_id, ref) if ref else None
            if row is None:
                raise ToolError(f"watch: no active watch named {ref!r} (see action 'list')")
            await store.run(watch_store.finish, store.store, row["id"], "cancelled")
            return f"Cancelled watch {row['name']}."
        return await self._create(args, store, workstream_id)

    async def _create(self, args: dict[str, Any], store: Any, workstream_id: str) -> str:
        command = str(args.get("command") or "").strip()
        if not command:
            raise ToolError("watch: create needs a command")
        interval = parse_interval(args.get("poll_every"))
        stop_on = (args.get("stop_on") or "").strip() or None
        if stop_on:
            parse(stop_on)
        name = (args.get("name") or "").strip() or re.sub(r"\W+", "-", command)[:30].strip("-") or "watch"
        max_polls = int(args.get("max_polls") or DEFAULT_MAX_POLLS)
        try:
            await store.run(watch_store.create, store.store, workstream_id, name=name, command=command,
                            interval=interval, stop_on=stop_on, max_polls=max_polls, limit=MAX_ACTIVE)
        except ValueError as error:
            raise ToolError(f"watch: {error}") from None
        wake_runner(store)
        condition = f"when {stop_on}" if stop_on else "when its output changes"
        return (f"Watching `{command}` every {interval:g}s as {name!r}; this conversation wakes {condition} "
                f"(at most {max_polls} polls).")


async def run_command(command: str, workspace: Path, timeout: float = COMMAND_TIMEOUT,
                      wrap: Callable[[list[str]], jail.Launch] | None = None) -> tuple[int, str]:
    """(exit code, stdout+stderr cut at 64 KB); its whole process group is killed at the timeout."""
    argv = ["bash", "-c", command]
    launch = wrap(argv) if wrap else jail.plain(argv)  # the clean environment and limits, jailed or not
    try:
        process = await asyncio.create_subprocess_exec(
            *launch.argv, cwd=str(workspace), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, **launch.kwargs())  # its own session: the limits' preexec
    finally:
        launch.started()
    try:
        out, _ = await asyncio.wait_for(process.communicate(), timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await process.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        return -1, f"(the command did not finish within {timeout:g}s)"
    return process.returncode or 0, out.decode(errors="replace")[:OUTPUT_LIMIT]


def fired_message(row: dict[str, Any], code: int, output: str, reason: str) -> str:
    shown = output if len(output) <= MESSAGE_OUTPUT else output[:MESSAGE_OUTPUT] + "\n[… cut]"
    return (f"[watch {row['name']!r} {reason}] `{row['command']}` exited {code} after {row['polls'] + 1} poll(s):\n"
            f"{shown.rstrip()}")


_RUNNERS: weakref.WeakKeyDictionary[Any, WatchRunner] = weakref.WeakKeyDictionary()  # store -> its runner


def wake_runner(store: Any) -> None:
    """A watch was just created in `store`: its runner in this process (if any) looks at once."""
    runner = _RUNNERS.get(store)
    if runner is not None:
        runner.wake()


class WatchRunner:
    """Polls due watches and calls `fire(workstream_id, text)` when one fires.

    Between rounds it sleeps until the earliest active watch is due, at most `tick` seconds (so a
    watch another process added is seen that late at worst); one this process creates wakes it
    (`wake_runner`). An idle app with no watch reads the store once a `tick`, not every few seconds.
    `vet(row)`, when given, puts each poll through its workstream's permission gate first: a command
    the gate now refuses (a deny rule added since, plan mode) stops the watch and says why.
    """

    def __init__(self, store: Any, fire: Fire, workspace: Path, *, tick: float = 60.0,
                 clock: Callable[[], float] = time.time, vet: Vet | None = None) -> None:
        self.store, self.fire, self.workspace, self.tick, self.clock = store, fire, Path(workspace), tick, clock
        self.vet = vet
        self._task: asyncio.Task | None = None
        self._woken = asyncio.Event()
        _RUNNERS[store] = self

    def wake(self) -> None:
        self._woken.set()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run_forever(), name="watch-runner")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def run_forever(self) -> None:
        while True:
            delay = self.tick
            try:
                await self.poll_once()
                delay = await self._until_due()
            except asyncio.CancelledError:
                raise
            except Exception:  # a broken row or a store hiccup must not end all watches
                log.exception("watch runner failed a round")
            try:
                await asyncio.wait_for(self._woken.wait(), delay)
            except TimeoutError:
                pass
            self._woken.clear()

    async def _until_due(self) -> float:
        """Seconds until the earliest active watch is due (0 if one is), at most `tick`."""
        due_at = await self.store.run(watch_store.next_due, self.store.store)
        return self.tick if due_at is None else min(self.tick, max(0.0, due_at - self.clock()))

    async def poll_once(self) -> int:
        """Poll every due watch once; returns how many fired."""
        now = self.clock()
        due = await self.store.run(watch_store.claim_due, self.store.store, now, COMMAND_TIMEOUT * 2)
        fired = 0
        for row in due:
            fired += await self._poll(row)
        return fired

    async def _poll(self, row: dict[str, Any]) -> int:
        permit = await self.vet(row) if self.vet is not None else PollPermit()
        if permit.refused is not None:
            if permit.record is not None:
                await permit.record("refused", None)
            if await self.store.run(watch_store.finish, self.store.store, row["id"], "cancelled"):
                await self.fire(row["workstream_id"], f"[watch {row['name']!r} stopped] `{row['command']}` was not "
                                f"run: the permission gate now refuses it ({permit.refused}).")
            return 0
        started = time.monotonic()
        code, output = await run_command(row["command"], permit.workspace or self.workspace, wrap=permit.wrap)
        if permit.record is not None:
            await permit.record("done" if code == 0 else f"error (exit {code})", time.monotonic() - started)
        previous = row["last_output"]
        changed = previous is not None and output != previous
        try:
            data = json.loads(output)
        except ValueError:
            data = None
        if row["stop_on"]:
            hit = evaluate(parse(row["stop_on"]), {"output": output, "data": data, "exit_code": code,
                                                   "prev_output": previous, "changed": changed})
            reason = "fired"
        else:
            hit, reason = changed, "saw a change"
        exhausted = row["polls"] + 1 >= row["max_polls"]
        await self.store.run(watch_store.record_poll, self.store.store, row["id"], output,
                             self.clock() + row["interval"])
        if not hit and not exhausted:
            return 0
        if not await self.store.run(watch_store.finish, self.store.store, row["id"], "fired"):
            return 0  # cancelled meanwhile
        if not hit:
            reason = f"gave up after {row['max_polls']} polls"
        await self.fire(row["workstream_id"], fired_message(row, code, output, reason))
        return 1
