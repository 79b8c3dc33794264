"""@-mention completion on a generated 50,000-file git work tree: listing the files next to
`git ls-files` itself, and the time per keystroke while typing a few mentions (p50 / p95, target
p95 <= 30 ms). Prints measurements and ratios from one run; no assertion (these machines are noisy).

    .venv/bin/python benchmarks/mention_completion.py [--files 50000] [--smoke]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.mentions.workspace_files import FileIndex, list_workspace, with_folders  # noqa: E402

TYPED = ("src/ma", "pkg123/mod", "readme", "tests/test_7", "zz9", "docs/guide/intro")


def build_tree(root: Path, count: int) -> None:
    """`count` files in nested packages, committed to git, plus an ignored build folder."""
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hi')\n")
    for index in range(count - 1):
        folder = root / f"pkg{index // 500}" / f"sub{index % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{index}.py").write_text("")
    (root / "build").mkdir()
    (root / "build" / "junk.o").write_text("")
    (root / ".gitignore").write_text("build/\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--smoke", action="store_true", help="CI: one tiny round, to show it still runs (its figures mean nothing)")
    args = parser.parse_args()
    if args.smoke:
        args.files = 300
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build_tree(root, args.files)
        git_seconds, _ = timed(lambda: subprocess.run(["git", "-C", str(root), "ls-files", "-co",
                                                       "--exclude-standard"], capture_output=True, check=True))
        list_seconds, files = timed(list_workspace, root)
        index_seconds, paths = timed(with_folders, files)
        index = FileIndex(paths)
        per_key = []
        for word in TYPED:
            for end in range(1, len(word) + 1):
                seconds, found = timed(index.match, word[:end])
                per_key.append(seconds)
        assert index.match("src/ma")[0] == "src/main.py"
        assert not any(p.startswith("build/") for p in paths), ".gitignore is respected"
    p95 = statistics.quantiles(per_key, n=20)[-1]
    print(f"files: {len(files)}  (+ {len(paths) - len(files)} folders)")
    print(f"git ls-files alone:        {git_seconds * 1000:8.1f} ms")
    print(f"list_workspace:            {list_seconds * 1000:8.1f} ms  ({list_seconds / git_seconds:.2f}x git ls-files)")
    print(f"folders added:             {index_seconds * 1000:8.1f} ms")
    print(f"per keystroke ({len(per_key)} keys): p50 {statistics.median(per_key) * 1000:.1f} ms, "
          f"p95 {p95 * 1000:.1f} ms, max {max(per_key) * 1000:.1f} ms  (target p95 <= 30 ms: "
          f"{'met' if p95 <= 0.030 else 'NOT met'})")


if __name__ == "__main__":
    main()
