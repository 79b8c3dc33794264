"""One headless run: open (or resume) a workstream, send one prompt; the permission engine decides.

Calls are decided by the same engine as in the TUI (rules, the project file, hooks, the mode, risk,
the sandbox), with --allow / --deny as rules of scope "cli"; what would ask is refused, since nobody
can answer, and every call writes an audit row (app/permissions/unattended.py).

The run uses the same store, sessions and tools as the TUI, so either can resume what the other
stored. Limits (turns, budget, time) and signals cancel the turn; the session keeps what completed.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.engine import events as ev
from app.headless import exit_codes
from app.headless.output import Output
from app.headless.wire import RunRecord

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
NOBODY = ("it would need the user's approval, and nobody can give it in a headless run (mode {mode}); the user "
          "can rerun with {{advice}}")
POLICY_PREFIX = "(Nobody was asked: this is a headless run, and its policy refused the call.) "


SEVERITY = (exit_codes.SUCCESS, exit_codes.REFUSED, exit_codes.ERROR)


def _worse(code: int, other: int) -> int:
    """The exit code of a run of several turns: a limit or a signal at once, else error > refused > success."""
    if other in (exit_codes.LIMIT, exit_codes.INTERRUPTED, exit_codes.USAGE):
        return other
    return max(code, other, key=lambda c: SEVERITY.index(c) if c in SEVERITY else len(SEVERITY))


async def _in_daemon_thread(func: Callable[..., Any], *args: Any) -> Any:
    """`func(*args)` in a daemon thread: a read of stdin still blocked when the run ends (a signal, the timeout)
    neither keeps the process alive nor makes asyncio.run's close wait for it, as an executor thread would."""
    import threading

    loop = asyncio.get_running_loop()
    future: asyncio.Future = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if not future.done():
            future.set_exception(error) if error is not None else future.set_result(result)

    def work() -> None:
        try:
            result, error = func(*args), None
        except Exception as problem:  # noqa: BLE001 - handed to the waiting coroutine
            result, error = None, problem
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the loop closed meanwhile: nobody waits any more
            pass

    threading.Thread(target=work, name="whimbrel-stdin", daemon=True).start()
    return await future


class RunRefused(Exception):
    """The run cannot start (unknown --resume, nothing to continue, bad --name …): `code` says which."""

    def __init__(self, message: str, code: int = exit_codes.USAGE) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class RunOptions:
    prompt: str
    workdir: Path
    data_dir: Path
    models: Any  # providers.models.ModelRegistry with a default model
    mode: str = "ask"
    rules: list = field(default_factory=list)  # --allow / --deny (app/permissions/unattended.cli_rules)
    config: Any = None  # app.settings.config.Config: its [policy] rules and [hooks] apply
    config_path: Path | None = None
    resume: str | None = None
    continue_last: bool = False
    name: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None
    timeout: float | None = None
    bash_timeout: float = 120.0
    output_limit: int = 30_000
    retry_base_delay: float = 1.0
    auto_compact_pct: float = 80.0
    tool_mode: str | None = None  # --tools-mode (code mode); None: the config's
    more_turns: Callable[[], str] | None = None  # --input-format stream-json: stdin's readline, for later turns


@dataclass
class _Stop:
    outcome: str  # "limit" or "interrupted"
    reason: str


@dataclass
class HeadlessRun:
    options: RunOptions
    output: Output
    record: RunRecord = field(default_factory=RunRecord)

    def __post_init__(self) -> None:
        self._stop: _Stop | None = None
        self._task: asyncio.Task | None = None
        self._turn_outcome = ""
        self._last_error = ""
        self._budget_warned = False
        self._registry = None
        self._guard = None  # tools.guard.CallGuard: the permission engine, unattended (tools/unattended.py)
        self.workstream = None
        self._workstream_id: str | None = None  # on every event once known
        self._store = None
        self._requests_before = 0  # model requests of the earlier turns (--max-turns counts the whole run)

    # -- the run -------------------------------------------------------------------------
    async def run(self) -> int:
        from app.storage.async_store import AsyncStore

        from app.storage.location import choose_store, shown_url

        path = self.options.data_dir / "whimbrel.db"
        try:  # the data dir's SQLite file, or a team's PostgreSQL (app/storage/location.py)
            chosen = choose_store(self.options.data_dir, self.options.config)
            path = chosen.location
            store = await AsyncStore.open(path, chosen.connect_args)
        except Exception as error:  # noqa: BLE001 - any cause (permissions, disk, corruption) is reported
            return self._fail_early(f"could not open {shown_url(path)}: {str(error).splitlines()[0][:300]}",
                                    exit_codes.ERROR)
        self._store = store
        try:
            return await self._run_in(store)
        finally:
            await self.options.models.aclose()
            await store.aclose()

    async def _run_in(self, store) -> int:
        from app.engine.workstreams import WorkstreamManager
        from tools.registry import ToolRegistry

        from tools.unattended import unattended_guard

        self._registry = await asyncio.to_thread(ToolRegistry.load_builtin)
        options = self.options
        self._guard = await unattended_guard(
            config=options.config, workspace=options.workdir, data_dir=options.data_dir, store=store,
            config_path=options.config_path or options.data_dir / "config.toml", mode=options.mode,
            rules=options.rules, nobody=NOBODY.format(mode=options.mode))
        models = self.options.models
        manager = WorkstreamManager(store=store, session_factory=self._make_session,
                                    model=models.settings(models.default).model,
                                    workdir=str(self.options.workdir))
        try:
            workstream = await self._open(manager, store)
        except RunRefused as refused:
            await manager.ownership.release_all()
            return self._fail_early(str(refused), refused.code)
        self.workstream = workstream
        # said first: loose file modes tightened, broken rules, project files waiting for review
        for notice in [*store.store.engine.notices, *self._guard.notices]:
            self._send({"type": "notice", "level": "warning", "text": notice})
        self._guard.notices.clear()
        heartbeat = asyncio.create_task(self._beat(manager))
        try:
            return await self._turns(workstream)
        finally:
            heartbeat.cancel()
            await manager.ownership.release_all()

    async def _open(self, manager, store):
        """The workstream this run talks in: --resume, --continue, or a new one; named by --name."""
        from app.engine.ownership import HeldElsewhere, where

        options = self.options
        ref = options.resume
        if options.continue_last:
            ref = await self._last_here(store)
        resumed = ref is not None
        if ref is None:
            workstream, _evicted = await manager.create()
        else:
            try:
                workstream, _evicted = await manager.open(ref, only_if_free=True)
            except LookupError as error:
                raise RunRefused(str(error)) from None
            except HeldElsewhere as held:
                raise RunRefused(f"workstream {ref} is {where(held.lease)}; a headless run does not "
                                 "write into it", exit_codes.ERROR) from None
        if options.name:
            try:
                await manager.rename(workstream, options.name)
            except ValueError as error:
                raise RunRefused(f"--name: {error}") from None
        workstream.listener = self._on_event
        self._workstream_id = workstream.id
        self._send({"type": "session_start", "workstream_id": workstream.id, "name": workstream.alias,
                    "model": workstream.model, "workdir": str(options.workdir), "resumed": resumed})
        return workstream

    async def _last_here(self, store) -> str:
        workdir = str(self.options.workdir)
        for info in await store.list_workstreams():
            if info.workdir == workdir and info.message_count:
                return info.id
        raise RunRefused(f"--continue: no earlier workstream in {workdir}")

    async def _turns(self, workstream) -> int:
        """The prompt's turn, then (--input-format stream-json) one turn per user line until stdin ends.

        The exit code is the worst of the turns': a limit or a signal ends the run at once; otherwise an error
        outranks a refusal, and a refusal success."""
        from app.headless.turns import TurnProblem, next_turn

        loop = asyncio.get_running_loop()
        installed = []
        for sig in STOP_SIGNALS:
            try:
                loop.add_signal_handler(sig, self.stop, "interrupted", f"stopped by {signal.Signals(sig).name}")
                installed.append(sig)
            except (ValueError, RuntimeError, NotImplementedError):  # not the main thread (tests)
                pass
        timer = None
        if self.options.timeout is not None:
            timer = loop.call_later(self.options.timeout, self.stop, "limit",
                                    f"--timeout {self.options.timeout:g} s reached")
        try:
            code = await self._turn(workstream, self.options.prompt)
            readline = self.options.more_turns
            while readline is not None and code not in (exit_codes.LIMIT, exit_codes.INTERRUPTED):
                self._task = asyncio.ensure_future(_in_daemon_thread(next_turn, readline))
                try:
                    prompt = await self._task
                except asyncio.CancelledError:  # a signal or the timeout while waiting for the next line
                    return self._finish(workstream, "")
                except TurnProblem as problem:
                    self._send({"type": "error", "exit_code": exit_codes.USAGE, "reason": str(problem)})
                    return exit_codes.USAGE
                if prompt is None:
                    break
                code = _worse(code, await self._turn(workstream, prompt))
            return code
        finally:
            if timer is not None:
                timer.cancel()
            for sig in installed:
                loop.remove_signal_handler(sig)

    async def _turn(self, workstream, prompt: str) -> int:
        self._requests_before += self.record.model_requests
        self.record, self._turn_outcome, self._last_error = RunRecord(), "", ""
        self._task = asyncio.create_task(workstream.submit(prompt))
        crash = ""
        try:
            await self._task
        except asyncio.CancelledError:
            if self._stop is None:
                raise
        except Exception as error:  # noqa: BLE001 - a bug in a lower room: words, never a traceback
            import logging

            logging.getLogger("whimbrel").exception("headless turn failed")
            crash = f"internal error: {type(error).__name__}: {error}"
        return self._finish(workstream, crash)

    def _finish(self, workstream, crash: str) -> int:
        if crash:
            outcome, code, reason = "error", exit_codes.ERROR, crash
        elif self._stop is not None:
            outcome, reason = self._stop.outcome, self._stop.reason
            code = exit_codes.LIMIT if outcome == "limit" else exit_codes.INTERRUPTED
        elif self._turn_outcome == "error":
            outcome, code, reason = "error", exit_codes.ERROR, self._last_error or "the turn failed"
        elif self.record.refusals:
            outcome, code, reason = "refused", exit_codes.REFUSED, "; ".join(self.record.refusals)
        else:
            outcome, code, reason = "done", exit_codes.SUCCESS, ""
        self.output.finish(self.record.summary(workstream_id=workstream.id, name=workstream.alias,
                                               outcome=outcome, exit_code=code, reason=reason))
        return code

    def stop(self, outcome: str, reason: str) -> None:
        """Cancel the turn (a limit or a signal); the first reason given is the one reported."""
        if self._stop is None:
            self._stop = _Stop(outcome, reason)
        if self._task is not None and not self._task.done():
            self._task.cancel()

    # -- events --------------------------------------------------------------------------
    def _on_event(self, event: ev.EngineEvent) -> None:
        wire = self.record.translate(event)
        if wire is not None:
            self._send(wire)
        if isinstance(event, ev.ApprovalRequested):
            self._answer(event)
        elif isinstance(event, ev.AssistantStarted):
            limit = self.options.max_turns
            if limit is not None and self._requests_before + self.record.model_requests > limit:
                self.stop("limit", f"--max-turns {limit} reached")
        elif isinstance(event, ev.UsageRecorded):
            self._check_budget(event)
        elif isinstance(event, ev.Notice) and event.level == "error":
            self._last_error = event.text
        elif isinstance(event, ev.TurnFinished):
            self._turn_outcome = event.outcome

    def _answer(self, event: ev.ApprovalRequested) -> None:
        """The engine refuses what would ask; what still asks (rerun outside the sandbox?) is denied."""
        if not event.future.done():
            event.future.set_result({item.call_id: ev.ApprovalDecision(
                "deny", feedback=POLICY_PREFIX + "nobody can answer this question in a headless run")
                for item in event.items})

    def _check_budget(self, event: ev.UsageRecorded) -> None:
        budget = self.options.max_budget_usd
        if budget is None:
            return
        if event.session_cost is None:
            if not self._budget_warned:
                self._budget_warned = True
                self._send({"type": "notice", "level": "warning",
                            "text": f"No price is known for {event.model}, so --max-budget-usd cannot be "
                                    "enforced; set its prices in [models.*] to enforce it."})
            return
        if event.session_cost >= budget:
            self.stop("limit", f"--max-budget-usd {budget:g} reached (spent ${event.session_cost:.4f})")

    def _send(self, wire: dict) -> None:
        """One event out, with the workstream's id (every line of stream-json carries it)."""
        self.output.event({"type": wire["type"], "workstream_id": self._workstream_id, **wire})

    def _fail_early(self, message: str, code: int) -> int:
        """Before the workstream opened: no events came, so only the failure is told (no turn_end)."""
        self.output.fail(code, message)
        return code

    async def _beat(self, manager) -> None:
        """Keep this run's lease fresh, so a TUI opening the workstream meanwhile shows it read-only."""
        while True:
            await asyncio.sleep(manager.ownership.interval)
            await manager.heartbeat()

    # -- sessions ------------------------------------------------------------------------
    def _make_session(self, workstream_id, saved, listener):
        from app.engine.session import Session
        from app.engine.tool_setup import configure_tools, settings_with_mode
        from tools.context import ToolContext

        options = self.options
        context = ToolContext(workspace=options.workdir, bash_timeout=options.bash_timeout,
                              output_limit=options.output_limit)
        alias = saved.model_alias if saved.model_alias in options.models else None
        session = Session(workstream_id=workstream_id, provider=None, registry=self._registry,
                          tool_context=context, emit=listener, store=self._store,
                          messages=saved.messages, context_start=saved.context_start,
                          retry_base_delay=options.retry_base_delay, models=options.models, model_alias=alias,
                          auto_compact_pct=options.auto_compact_pct, guard=self._guard)
        if saved.compaction is not None:
            session.restore_compaction(*saved.compaction)
        configure_tools(session, options.config, settings_with_mode(saved.settings, options.tool_mode))
        return session
