"""Whimbrel's own git commands ignore a planted config (core.fsmonitor, a filter, a textconv, an
external diff); hooks start from the clean environment, and a project hook runs in the sandbox."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.permissions.hooks import Hook, run_hooks
from app.sandbox import bwrap, jail
from app.mentions.workspace_files import list_workspace


@pytest.fixture
def planted(tmp_path: Path):
    """A repository whose .git/config runs `touch MARKER-<kind>` from every hook point it can name."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitattributes").write_text("*.txt filter=evil diff=evil\n")
    (root / "a.txt").write_text("hello\n")
    marker = tmp_path / f"marker-{uuid.uuid4().hex[:8]}"
    with open(root / ".git" / "config", "a") as config:
        config.write(f'[core]\n\tfsmonitor = "touch {marker}-fsmonitor; false"\n\tpager = "touch {marker}-pager; cat"\n'
                     f'[filter "evil"]\n\tclean = "touch {marker}-clean; cat"\n\trequired = true\n'
                     f'[diff "evil"]\n\ttextconv = "touch {marker}-textconv; cat"\n'
                     f'[diff]\n\texternal = "touch {marker}-external"\n')
    return root, marker


def markers(marker: Path) -> list[str]:
    return sorted(p.name for p in marker.parent.glob(marker.name + "-*"))


def test_at_completion_listing_runs_nothing_the_repository_planted(planted):
    root, marker = planted
    assert list_workspace(root) == [".gitattributes", "a.txt"]
    assert markers(marker) == []
    subprocess.run(["git", "status"], cwd=root, capture_output=True)  # the attack is real: plain git runs it
    assert f"{marker.name}-fsmonitor" in markers(marker)


def test_the_safe_git_helper_runs_no_planted_program_for_add_diff_and_status(planted):
    from app.sandbox import git

    root, marker = planted
    for args in (["status", "--porcelain"], ["add", "-A"], ["diff", "--cached"], ["log", "-p"]):
        git.run(args, root, capture_output=True)
    assert markers(marker) == []


async def test_hooks_start_from_the_clean_environment_and_a_project_hook_is_jailed(tmp_path, monkeypatch):
    if bwrap.available() is None:
        pytest.skip(bwrap.unavailable_reason())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    data = tmp_path / "data"
    data.mkdir()
    (data / "whimbrel.db").write_text("the audit store")
    jail.configure(SimpleNamespace(), hidden=[data])  # what the faces do with Whimbrel's data and config
    outside = Path("/var/tmp") / f"whimbrel-hook-{uuid.uuid4().hex}"
    try:
        for scope in ("user", "project"):
            hook = Hook("UserPromptSubmit", "", f"env > {scope}-env.txt; touch {outside}-{scope}", scope=scope)
            await run_hooks([hook], "UserPromptSubmit", {"prompt": "hi"}, workspace)
            assert "sk-must-not-leak" not in (workspace / f"{scope}-env.txt").read_text()
        assert Path(f"{outside}-user").exists()  # the user's own hook runs as the user wrote it
        assert not Path(f"{outside}-project").exists()  # a project hook writes only its workspace
        hook = Hook("UserPromptSubmit", "", f"cat {data}/whimbrel.db > leaked.txt", scope="project")
        await run_hooks([hook], "UserPromptSubmit", {"prompt": "hi"}, workspace)
        assert "audit store" not in (workspace / "leaked.txt").read_text()
    finally:
        jail.configure(SimpleNamespace())
        for scope in ("user", "project"):
            Path(f"{outside}-{scope}").unlink(missing_ok=True)


async def test_a_project_hook_does_not_run_without_the_sandbox(tmp_path, monkeypatch):
    import app.permissions.hooks as hooks

    monkeypatch.setattr(hooks.bwrap, "available", lambda: None)  # a machine without bubblewrap
    hook = Hook("UserPromptSubmit", "", "touch ran.txt", scope="project")
    outcome = await run_hooks([hook], "UserPromptSubmit", {"prompt": "hi"}, tmp_path)
    assert not (tmp_path / "ran.txt").exists()
    assert outcome.failures and "project hook" in outcome.failures[0]
