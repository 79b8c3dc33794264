"""man: real manual pages, --help as a fallback, and names that cannot become options."""

from __future__ import annotations

import shutil

import pytest

from tests.tools.helpers import run

needs_man = pytest.mark.skipif(shutil.which("man") is None or not shutil.which("ls"),
                               reason="the man program is not installed here")


@needs_man
async def test_a_manual_page_as_plain_text(registry, ctx) -> None:
    text, is_error = await run(registry, ctx, "man", "ls")
    assert not is_error and "list directory contents" in text and "\x08" not in text


@needs_man
async def test_a_missing_section_says_so(registry, ctx) -> None:
    text, is_error = await run(registry, ctx, "man", {"page": "ls", "section": "7"})
    assert is_error and "no manual page for ls in section 7" in text


async def test_help_when_there_is_no_page(registry, ctx, tmp_path, monkeypatch) -> None:
    tool = tmp_path / "bin" / "frobnicate"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho 'usage: frobnicate [--loud] FILE'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}:/usr/bin:/bin")
    text, is_error = await run(registry, ctx, "man", {"page": "frobnicate"})
    assert not is_error and "--help` says" in text and "usage: frobnicate [--loud] FILE" in text


@pytest.mark.parametrize("page", ["-P sh", "../../etc/passwd", "ls;id", ""])
async def test_names_that_are_not_page_names_are_refused(registry, ctx, page) -> None:
    text, is_error = await run(registry, ctx, "man", {"page": page})
    assert is_error and "is not a page name" in text


async def test_an_unknown_page_and_command(registry, ctx) -> None:
    text, is_error = await run(registry, ctx, "man", {"page": "no-such-thing-xyz"})
    assert is_error and "no manual page for no-such-thing-xyz, and no such command on PATH" in text


async def test_help_of_a_program_inside_the_workspace_is_not_run(registry, ctx, workspace, monkeypatch) -> None:
    """man runs without approval, so it never runs a program the workspace (a model) could have written."""
    tool = workspace / "bin" / "sneaky"
    tool.parent.mkdir()
    tool.write_text(f"#!/bin/sh\ntouch {workspace}/ran\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}:/usr/bin:/bin")
    text, is_error = await run(registry, ctx, "man", {"page": "sneaky"})
    assert is_error and "inside the workspace" in text and not (workspace / "ran").exists()
