"""Checkpoint cost on a big workspace: 10,000 files (200 MB by default).

Prints, measured in one run (these machines are noisy, so ratios matter more than seconds):
- the first snapshot (every file hashed once, as the first turn in a new workspace does);
- a turn start when nothing changed (`TurnCheckpoints.begin`: snapshot and its keep-ref);
- a checkpoint after 10 files changed: the whole turn end as a session runs it
  (`TurnCheckpoints.end`: snapshot, diff, the row in a real SQLite store, the refs), beside
  `git status` on the same tree (a plain git repository of the same files): target <= 150 ms;
- a rewind of those 10 files: the restore alone, and `/rewind` files as the screen applies it
  (journal row, refs, restore, done), then undone to go on;
- how much the shadow repository grows per checkpoint.

    python benchmarks/checkpoint.py [--files 10000] [--mb 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
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


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


async def timed_async(make) -> float:
    start = time.perf_counter()
    await make()
    return time.perf_counter() - start


def change_ten(workspace: Path, round_number: int) -> None:
    for index in range(10):
        path = workspace / f"pkg{index:03d}" / f"module_{index * 200:05d}.py"
        with open(path, "ab") as handle:
            handle.write(f"\n# round {round_number}\n".encode())


def git_status_seconds(workspace: Path) -> float:
    env = {**os.environ, "GIT_DIR": str(workspace.parent / "plain.git"), "GIT_WORK_TREE": str(workspace)}
    return timed(lambda: subprocess.run(["git", "status", "--porcelain"], env=env, capture_output=True, check=True))


async def measure(root: Path, workspace: Path, rounds: int) -> dict[str, list[float]]:
    """Time turn starts, turn ends, restores and rewinds over `rounds` turns that change 10 files."""
    store = await AsyncStore.open(root / "data" / "whimbrel.db")
    figures: dict[str, list[float]] = {k: [] for k in ("first", "idle", "checkpoint", "status", "restore",
                                                       "rewind", "growth")}
    try:
        workstream_id = await store.create_workstream(title="bench", workdir=str(workspace))
        repo = ShadowRepo(root / "data", workspace, max_file_size=50 * 1024 * 1024)
        turns, rewinder = TurnCheckpoints(store, repo, workstream_id), Rewinder(store, repo, workstream_id)
        figures["first"].append(await timed_async(lambda: asyncio.to_thread(repo.snapshot)))
        for round_number in range(rounds):
            message = Message(role="user", content=f"turn {round_number}")
            await store.add_message(workstream_id, message)
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
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="whimbrel-bench-"))
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
        med = {key: statistics.median(values) for key, values in figures.items()}
        status = med["status"]

        def line(label: str, key: str, extra: str = "") -> None:
            print(f"{label:<44}{med[key] * 1000:8.1f} ms   = {med[key] / status:.2f} × git status{extra}")

        print(f"{'first snapshot (hashes every file)':<44}{med['first'] * 1000:8.0f} ms")
        line("turn start, nothing changed", "idle")
        line("checkpoint (turn end) after 10 files changed", "checkpoint",
             f" ({status * 1000:.1f} ms)   target ≤ 150 ms: {med['checkpoint'] * 1000 / 150:.2f} × target")
        line("restore of those 10 files", "restore")
        line("rewind of them (files, as /rewind applies it)", "rewind")
        print(f"{'store growth per checkpoint':<44}{med['growth'] / 1024:8.1f} KB   "
              f"(the 10 files hold {10 * options.mb * 1024 / options.files:.0f} KB; loose objects, zlib)")
    finally:
        shutil.rmtree(root, ignore_errors=True)

if __name__ == "__main__":
    main()
