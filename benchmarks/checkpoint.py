"""Checkpoint cost on a big workspace: 10,000 files (200 MB by default).

Prints, measured in one run, wall time and CPU time (this process's threads and the git processes it
ran), each also as a ratio to `git status` (these machines are noisy: on a loaded one the CPU ratio is the
steadier figure):
- the first snapshot (every file hashed once, as the first turn in a new workspace does);
- a turn start when nothing changed (`TurnCheckpoints.begin`: snapshot and its keep-ref; after one
  untimed snapshot, as the first one after a restore re-reads the files the restore wrote);
- a checkpoint after 10 files changed: the whole turn end as a session runs it
  (`TurnCheckpoints.end`: snapshot, diff, the row in a real SQLite store, the refs), beside
  `git status` on the same tree (a plain git repository of the same files): target <= 150 ms;
- a rewind of those 10 files: the restore alone, and `/rewind` files as the screen applies it
  (journal row, refs, restore, done), then undone to go on;
- how much the shadow repository grows per checkpoint.

    python benchmarks/checkpoint.py [--files 10000] [--mb 200] [--rounds 5] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.checkpoints.rewind import Rewinder  # noqa: E402
from app.checkpoints.shadow import ShadowRepo  # noqa: E402
from app.checkpoints.turns import TurnCheckpoints  # noqa: E402
from app.storage.async_store import AsyncStore  # noqa: E402
from app.vocabulary.messages import Message  # noqa: E402


def build(workspace: Path, files: int, megabytes: int) -> None:
    size = megabytes * 1024 * 1024 // files
    for index in range(files):
        folder = workspace / f"pkg{index // 200:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"module_{index:05d}.py").write_bytes(os.urandom(size // 2).hex().encode()[:size])


def _cpu() -> float:
    """CPU seconds of this process (all its threads) and of the children it has reaped (git)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of `fn()`: on a loaded machine the CPU figure is the steadier one."""
    wall, cpu = time.perf_counter(), _cpu()
    fn()
    return time.perf_counter() - wall, _cpu() - cpu


async def timed_async(make) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), _cpu()
    await make()
    return time.perf_counter() - wall, _cpu() - cpu


def change_ten(workspace: Path, round_number: int) -> None:
    for index in range(10):
        path = workspace / f"pkg{index:03d}" / f"module_{index * 200:05d}.py"
        with open(path, "ab") as handle:
            handle.write(f"\n# round {round_number}\n".encode())


def git_status_seconds(workspace: Path) -> tuple[float, float]:
    env = {**os.environ, "GIT_DIR": str(workspace.parent / "plain.git"), "GIT_WORK_TREE": str(workspace)}
    return timed(lambda: subprocess.run(["git", "status", "--porcelain"], env=env, capture_output=True, check=True))


async def measure(root: Path, workspace: Path, rounds: int) -> dict[str, list]:
    """Time turn starts, turn ends, restores and rewinds over `rounds` turns that change 10 files."""
    store = await AsyncStore.open(root / "data" / "whimbrel.db")
    figures: dict[str, list] = {k: [] for k in ("first", "idle", "checkpoint", "status", "restore", "rewind",
                                                "growth")}
    try:
        workstream_id = await store.create_workstream(title="bench", workdir=str(workspace))
        repo = ShadowRepo(root / "data", workspace, max_file_size=50 * 1024 * 1024)
        turns, rewinder = TurnCheckpoints(store, repo, workstream_id), Rewinder(store, repo, workstream_id)
        figures["first"].append(await timed_async(lambda: asyncio.to_thread(repo.snapshot)))
        for round_number in range(rounds):
            message = Message(role="user", content=f"turn {round_number}")
            await store.add_message(workstream_id, message)
            await asyncio.to_thread(repo.snapshot)  # the first snapshot after a restore re-reads what it wrote
            figures["idle"].append(await timed_async(lambda: turns.begin(message)))
            before_size = repo.stored_size()
            change_ten(workspace, round_number)
            figures["status"].append(git_status_seconds(workspace))
            ended = {}

            async def turn_end() -> None:
                ended["row"], ended["warning"] = await turns.end([])

            figures["checkpoint"].append(await timed_async(turn_end))
            row = ended["row"]
            assert row is not None and len(row.changes) == 10, ended
            figures["growth"].append(repo.stored_size() - before_size)
            await store.add_message(workstream_id, Message(role="assistant", content="done"))
            figures["restore"].append(timed(lambda: repo.restore(row.before_tree)))
            repo.restore(row.after_tree)  # forward again for the rewind as the screen applies it
            plan = await rewinder.plan(row.user_seq)
            figures["rewind"].append(await timed_async(lambda: rewinder.apply(plan, "files")))
            await rewinder.undo()  # forward again, so the next round changes the files anew
        return figures
    finally:
        await store.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="CI: one tiny round, to show it still runs (its figures mean nothing)")
    options = parser.parse_args()
    if options.smoke:  # change_ten edits a file in each of the first ten folders of 200
        options.files, options.mb, options.rounds = 2000, 1, 1
    root = Path(tempfile.mkdtemp(prefix="whimbrel-bench-checkpoint-"))
    try:
        workspace = root / "ws"
        workspace.mkdir()
        (root / "data").mkdir()
        print(f"building {options.files} files, {options.mb} MB in {workspace} …", flush=True)
        build(workspace, options.files, options.mb)
        env = {**os.environ, "GIT_DIR": str(root / "plain.git"), "GIT_WORK_TREE": str(workspace)}
        subprocess.run(["git", "init", "-q"], env=env, check=True)
        subprocess.run(["git", "add", "-A"], env=env, check=True)  # git status compares against this index
        figures = asyncio.run(measure(root, workspace, options.rounds))
        wall = {k: statistics.median(v[0] for v in values) for k, values in figures.items() if k != "growth"}
        cpu = {k: statistics.median(v[1] for v in values) for k, values in figures.items() if k != "growth"}

        def line(label: str, key: str, extra: str = "") -> None:
            print(f"{label:<46}{wall[key] * 1000:7.1f} ms = {wall[key] / wall['status']:4.2f} × git status   "
                  f"CPU {cpu[key] * 1000:6.1f} ms = {cpu[key] / cpu['status']:4.2f} × git status{extra}")

        print(f"{'first snapshot (hashes every file)':<46}{wall['first'] * 1000:7.0f} ms")
        line("git status --porcelain on the same tree", "status")
        line("turn start, nothing changed", "idle")
        line("checkpoint (turn end) after 10 files changed", "checkpoint",
             f"   target ≤ 150 ms: {wall['checkpoint'] * 1000 / 150:.2f} × target")
        line("restore of those 10 files", "restore")
        line("rewind of them (files, as /rewind applies it)", "rewind")
        print(f"{'store growth per checkpoint':<46}{statistics.median(figures['growth']) / 1024:7.1f} KB "
              f"(the 10 files hold {10 * options.mb * 1024 / options.files:.0f} KB; loose objects, zlib)")
    finally:
        shutil.rmtree(root, ignore_errors=True)

if __name__ == "__main__":
    main()
