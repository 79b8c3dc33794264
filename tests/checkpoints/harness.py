"""Checkpointed sessions for tests: a real Session (fake LLM over HTTP), a real shadow repo, SQLite."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from app.checkpoints.rewind import Rewinder
from app.checkpoints.shadow import ShadowRepo
from app.checkpoints.turns import TurnCheckpoints
from tests.engine.harness import Recorder, make_session


async def checkpointed_session(server, workspace: Path, data_dir: Path, *, recorder: Recorder | None = None,
                               **repo_options):
    """(session, store, rewinder) with checkpoints around every turn."""
    recorder = recorder or Recorder()
    session, store = await make_session(server, workspace, data_dir, recorder)
    repo = ShadowRepo(data_dir, workspace, **repo_options)
    session.checkpoints = TurnCheckpoints(store, repo, session.workstream_id)
    return session, store, Rewinder(store, repo, session.workstream_id)


def tree_state(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every file and link under `root` (but .git): kind, exec bits, content hash (or link target).
    Directories are left out: like git, checkpoints keep files, and a directory only through them."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            info = full.lstat()
            if full.is_symlink():
                state[rel] = ("link", 0, os.readlink(full))
            else:
                state[rel] = ("file", info.st_mode & 0o111, hashlib.sha256(full.read_bytes()).hexdigest())
    return state


def args(**values) -> str:
    return json.dumps(values)


def git_init(path: Path) -> None:
    """Make `path` a git repository with one commit of what it holds (a fixed identity and date, so the
    same files give the same commit; no user config)."""
    import subprocess

    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": "/usr/bin:/bin", "HOME": str(path), "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    for words in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *words], cwd=path, check=True, capture_output=True, env=env)
