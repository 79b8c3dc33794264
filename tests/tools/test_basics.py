import os
from pathlib import Path

from tools.context import ToolContext
from tools.truncate import HeadTailBuffer, truncate
from tools.workspace import display_path, resolve_path


def test_truncate_keeps_head_and_tail() -> None:
    assert truncate("short", 10) == "short"
    text = "a" * 10_000 + "b" * 10_000 + "c" * 12_345
    out = truncate(text, 1000)
    assert out.startswith("a" * 500) and out.endswith("c" * 500)
    assert "\n… [31,345 characters omitted] …\n" in out


def test_head_tail_buffer_matches_truncate() -> None:
    buffer = HeadTailBuffer(100)
    text = "".join(f"line {i}\n" for i in range(1000))
    for start in range(0, len(text), 37):
        buffer.append(text[start:start + 37])
    kept = buffer.text()
    assert kept.startswith(text[:100]) and kept.endswith(text[-100:])
    assert f"[{len(text) - 200:,} characters omitted]" in kept


def test_resolve_path(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    os.symlink(tmp_path, ws / "escape")
    os.symlink(ws / "sub", ws / "inner")
    assert resolve_path("sub/x.py", ws) == (ws / "sub/x.py", True)
    assert resolve_path("../x.py", ws) == (tmp_path / "x.py", False)
    assert resolve_path("escape/x.py", ws) == (tmp_path / "x.py", False)
    assert resolve_path("inner/x.py", ws) == (ws / "sub/x.py", True)
    assert resolve_path(str(ws / "sub"), ws) == (ws / "sub", True)
    assert display_path(ws / "sub/x.py", ws) == "sub/x.py"
    assert display_path(tmp_path / "x.py", ws) == str(tmp_path / "x.py")


def test_context_resolves_workspace(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    ctx = ToolContext(workspace=tmp_path / "a" / ".." / "a")
    assert ctx.workspace == (tmp_path / "a").resolve()
    ctx.on_output("ignored by default")
