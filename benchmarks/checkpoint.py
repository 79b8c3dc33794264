"""Checkpoint cost on a big workspace: 10,000 files (200 MB by default).

Prints, measured in one run (these machines are noisy, so ratios matter more than seconds):
- the first snapshot (every file hashed once, as the first turn in a new workspace does);
- a checkpoint after 10 files changed (the turn-end snapshot plus its diff), beside `git status`
  on the same tree (a plain git repository of the same files) — target ≤ 150 ms;
- a snapshot when nothing changed (what every turn start costs);
- a rewind of those 10 files;
- how much the shadow repository grows per checkpoint.

    python benchmarks/checkpoint.py [--files 10000] [--mb 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.checkpoints.shadow import ShadowRepo  # noqa: E402


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


def change_ten(workspace: Path, round_number: int) -> None:
    for index in range(10):
        path = workspace / f"pkg{index:03d}" / f"module_{index * 200:05d}.py"
        with open(path, "ab") as handle:
            handle.write(f"\n# round {round_number}\n".encode())


def git_status_seconds(workspace: Path) -> float:
    env = {**os.environ, "GIT_DIR": str(workspace.parent / "plain.git"), "GIT_WORK_TREE": str(workspace)}
    return timed(lambda: subprocess.run(["git", "status", "--porcelain"], env=env, capture_output=True, check=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="whimbrel-bench-"))
    try:
        workspace, data = root / "ws", root / "data"
        workspace.mkdir()
        print(f"building {options.files} files, {options.mb} MB in {workspace} …", flush=True)
        build(workspace, options.files, options.mb)
        env = {**os.environ, "GIT_DIR": str(root / "plain.git"), "GIT_WORK_TREE": str(workspace)}
        subprocess.run(["git", "init", "-q"], env=env, check=True)
        subprocess.run(["git", "add", "-A"], env=env, check=True)  # git status compares against this index
        repo = ShadowRepo(data, workspace, max_file_size=50 * 1024 * 1024)
        first = timed(repo.snapshot)
        base = repo.snapshot().tree
        idle, checkpoint, status, rewind, growth = [], [], [], [], []
        for round_number in range(options.rounds):
            idle.append(timed(repo.snapshot))
            before_size = repo.stored_size()
            change_ten(workspace, round_number)
            status.append(git_status_seconds(workspace))
            result = {}

            def turn_end() -> None:  # what TurnCheckpoints.end does: snapshot, then the turn's changes
                result["tree"] = repo.snapshot().tree
                result["changes"] = repo.changes(base, result["tree"])

            checkpoint.append(timed(turn_end))
            growth.append(repo.stored_size() - before_size)
            after = result["tree"]
            rewind.append(timed(lambda: repo.restore(base)))
            repo.restore(after)  # forward again, so the next round changes the files anew
            base = after
        med = statistics.median
        print(f"first snapshot (hashes every file)   {first * 1000:8.0f} ms")
        print(f"snapshot, nothing changed            {med(idle) * 1000:8.1f} ms   "
              f"= {med(idle) / med(status):.2f} × git status")
        print(f"checkpoint after 10 files changed    {med(checkpoint) * 1000:8.1f} ms   "
              f"= {med(checkpoint) / med(status):.2f} × git status ({med(status) * 1000:.1f} ms)   target ≤ 150 ms")
        print(f"rewind of those 10 files             {med(rewind) * 1000:8.1f} ms   "
              f"= {med(rewind) / med(status):.2f} × git status")
        print(f"store growth per checkpoint          {med(growth) / 1024:8.1f} KB   "
              f"(the 10 files hold {10 * options.mb * 1024 / options.files:.0f} KB; loose objects, zlib)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
