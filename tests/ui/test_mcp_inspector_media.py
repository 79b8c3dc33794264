"""Opening an image from a result (server-everything's get-tiny-image): saved in the data dir, then
handed to the viewer `$BROWSER` names (a real program here, which records what it was given), or a
clear message when there is no viewer."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from app.mcp.media import open_command
from tests.mcp.conftest import needs_node, server_path
from tests.ui.helpers import make_app, wait_for
from tests.ui.inspector_helpers import EVERYTHING, result_text, tool_result


def recording_viewer(folder: Path) -> tuple[Path, Path]:
    """A viewer script that writes the file it is asked to open into `opened.txt`; (script, record)."""
    record = folder / "opened.txt"
    script = folder / "viewer"
    script.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{record}"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, record


def test_the_open_command_follows_browser_then_xdg_open(tmp_path: Path):
    script, _ = recording_viewer(tmp_path)
    image = tmp_path / "a b.png"
    path = f"{tmp_path}{os.pathsep}/usr/bin:/bin"
    assert open_command(image, {"BROWSER": str(script), "PATH": path}) == [str(script), str(image)]
    assert open_command(image, {"BROWSER": f"{script} --new %s", "PATH": path}) == [str(script), "--new", str(image)]
    # a $BROWSER program that is not installed is skipped; with no xdg-open either there is nothing
    assert open_command(image, {"BROWSER": "no-such-viewer", "PATH": str(tmp_path / "empty")}) is None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "xdg-open").symlink_to(script)
    assert open_command(image, {"PATH": str(bin_dir)}) == [str(bin_dir / "xdg-open"), str(image)]


@needs_node
async def test_an_image_result_opens_in_the_users_viewer_or_says_there_is_none(tmp_path, monkeypatch):
    script, record = recording_viewer(tmp_path)
    monkeypatch.setenv("PATH", server_path())
    monkeypatch.setenv("BROWSER", str(script))
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        manager, _, tools, shown = await tool_result(pilot, EVERYTHING, "get-tiny-image", "▣ image")
        assert "Ctrl+O" in shown and "opens it in your viewer" in shown
        assert shown.count("▀") >= 100  # its 20×20 pixels inline, as half blocks
        tools.option_list.focus()
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: record.exists(), timeout=30, message="the viewer ran")
        opened = Path(record.read_text())
        assert opened.parent == tmp_path / "data" / "mcp-media" and opened.read_bytes()[:4] == b"\x89PNG"
        await wait_for(pilot, lambda: f"Saved to {opened}; opened with viewer." in result_text(tools),
                       message="said where and with what")
        monkeypatch.delenv("BROWSER")
        monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # no xdg-open either
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: "nothing to open it with: set $BROWSER or install xdg-open"
                       in result_text(tools), message="no viewer, said so")
        assert len(list((tmp_path / "data" / "mcp-media").iterdir())) == 2  # saved all the same
        await manager.stop()
