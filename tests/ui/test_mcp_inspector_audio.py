"""Audio in a result (a real stdio server's `chime`, tests/mcp/media_server.py): a block with its type,
length and size and the keys in force; the save key writes the WAV; the open key plays it with the
first player on PATH (a real program here that records what it was given), or says there is none."""

from __future__ import annotations

import stat
import sys
import wave
from pathlib import Path

from app.mcp.config import ServerConfig
from app.mcp.media import Media, describe
from tests.mcp.media_server import chime_wav
from tests.ui.helpers import make_app, wait_for
from tests.ui.inspector_helpers import result_text, tool_result

MEDIA = ServerConfig("media", command=sys.executable, args=[str(Path(__file__).parents[1] / "mcp" / "media_server.py")])


def test_a_wav_clip_is_described_with_its_length():
    import base64

    clip = Media("audio", "audio/wav", base64.b64encode(chime_wav()).decode())
    assert describe(clip) == "audio/wav, 7.9 KB, 0.50 s"
    assert describe(Media("audio", "audio/ogg", "T2dnUw==")) == "audio/ogg, 4 bytes"  # no length known


def recording_player(folder: Path, name: str) -> Path:
    """A program called `name` in `folder` that writes its last argument to `played.txt`."""
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(f'#!/bin/sh\nfor last; do :; done\nprintf "%s" "$last" > "{folder / "played.txt"}"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder / "played.txt"


async def test_an_audio_result_is_saved_and_played(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    record = recording_player(bin_dir, "aplay")
    monkeypatch.setenv("PATH", str(bin_dir))  # no real player or xdg-open: only the recording one
    monkeypatch.delenv("BROWSER", raising=False)
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        manager, _, tools, shown = await tool_result(pilot, MEDIA, "chime", "♪ audio")
        assert "audio/wav, 7.9 KB, 0.50 s" in shown
        assert "Ctrl+S (or Save media) saves it to a file" in shown and "Ctrl+O saves it and plays it" in shown
        tools.option_list.focus()
        await pilot.press("ctrl+s")
        folder = tmp_path / "data" / "mcp-media"
        await wait_for(pilot, lambda: folder.exists() and any(folder.iterdir()), message="the clip saved")
        (saved,) = folder.iterdir()
        assert saved.suffix == ".wav" and saved.read_bytes() == chime_wav()
        with wave.open(str(saved)) as clip:
            assert clip.getnframes() == 4000 and clip.getframerate() == 8000
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: record.exists(), timeout=30, message="the player ran")
        played = Path(record.read_text())
        assert played.parent == folder and played.read_bytes() == chime_wav()
        await wait_for(pilot, lambda: f"Saved to {played}; playing with aplay." in result_text(tools),
                       message="said what plays it")
        (bin_dir / "aplay").unlink()
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: "nothing to play it with: install mpv, ffplay, paplay, aplay or afplay"
                       in result_text(tools), message="no player, said so")
        await manager.stop()
