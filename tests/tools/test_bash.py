import asyncio
import os
import re
import signal
from pathlib import Path

import pytest

from tests.e2e.processes import alive
from tests.tools.helpers import prep, run
from tools.context import ToolContext
from tools.pipeline import execute
from tools.registry import ToolRegistry


async def wait_gone(pids: list[int], within: float = 5.0) -> bool:
    for _ in range(int(within / 0.05)):
        if not any(alive(p) for p in pids):
            return True
        await asyncio.sleep(0.05)
    return False


async def wait_for_output(output: list[str], needle: str, within: float = 5.0) -> None:
    for _ in range(int(within / 0.02)):
        if needle in "".join(output):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{needle!r} never arrived; got {output!r}")


def pids_in(output: list[str]) -> list[int]:
    return [int(p) for p in re.findall(r"pid=(\d+)", "".join(output))]


async def test_runs_in_workspace_and_reports_exit_code(registry: ToolRegistry, ctx: ToolContext,
                                                       workspace: Path) -> None:
    text, err = await run(registry, ctx, "bash", {"command": "pwd; echo hi > made.txt"})
    assert not err
    assert text == f"{workspace}\n[exit code 0]"
    assert (workspace / "made.txt").read_text() == "hi\n"


async def test_nonzero_exit_merges_stderr(registry: ToolRegistry, ctx: ToolContext) -> None:
    text, err = await run(registry, ctx, "bash", {"command": "echo out; echo oops >&2; exit 3"})
    assert err
    assert text == "out\noops\n[exit code 3]"


async def test_streams_lines_before_the_command_ends(registry: ToolRegistry, ctx: ToolContext,
                                                     output: list[str]) -> None:
    task = asyncio.create_task(run(registry, ctx, "bash", {"command": "echo a; sleep 1; echo b"}))
    await wait_for_output(output, "a\n")
    assert not task.done()
    assert "b" not in "".join(output)
    text, err = await task
    assert not err and text == "a\nb\n[exit code 0]"
    assert "".join(output) == "a\nb\n"


async def test_timeout_kills_process_group(registry: ToolRegistry, ctx: ToolContext, output: list[str]) -> None:
    command = "echo start; sleep 30 & echo pid=$!; sleep 30"
    text, err = await run(registry, ctx, "bash", {"command": command, "timeout": 0.5})
    assert err
    assert text.startswith("start\n")
    assert text.endswith("[timed out after 0.5s; process group killed]")
    assert await wait_gone(pids_in(output))


async def test_cancel_kills_process_group(registry: ToolRegistry, ctx: ToolContext, output: list[str]) -> None:
    command = "sleep 30 & echo pid=$!; sleep 30 & echo pid=$!; echo shell=$$; wait"
    task = asyncio.create_task(execute(prep(registry, ctx, "bash", {"command": command}), ctx))
    await wait_for_output(output, "shell=")
    pids = pids_in(output) + [int(re.search(r"shell=(\d+)", "".join(output)).group(1))]  # type: ignore[union-attr]
    assert len(pids) == 3 and all(alive(p) for p in pids)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(pids)


async def test_background_job_holding_output_does_not_hang(registry: ToolRegistry, ctx: ToolContext,
                                                            output: list[str]) -> None:
    text, err = await run(registry, ctx, "bash", {"command": "sleep 10 & echo pid=$!"})
    try:
        assert not err
        assert "later output is not captured" in text and text.endswith("[exit code 0]")
    finally:
        for pid in pids_in(output):
            os.kill(pid, signal.SIGKILL)


async def test_long_output_is_truncated_head_and_tail(registry: ToolRegistry, workspace: Path) -> None:
    small = ToolContext(workspace=workspace, output_limit=1000)
    text, err = await run(ToolRegistry.load_builtin(), small, "bash", {"command": "seq 1 100000"})
    assert not err
    assert text.startswith("1\n2\n3\n") and text.endswith("100000\n[exit code 0]")
    assert "characters omitted" in text and len(text) < 1200
