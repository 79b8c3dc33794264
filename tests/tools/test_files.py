from pathlib import Path

from tests.tools.helpers import run
from tools.context import ToolContext
from tools.registry import ToolRegistry


async def test_read_file_numbers_lines_and_records_path(registry: ToolRegistry, ctx: ToolContext,
                                                       workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\ngamma\n")
    text, err = await run(registry, ctx, "read_file", {"path": "a.txt"})
    assert not err
    assert text == "     1\talpha\n     2\tbeta\n     3\tgamma"
    assert workspace / "a.txt" in ctx.read_paths


async def test_read_file_window_notes_remaining(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    text, err = await run(registry, ctx, "read_file", {"path": "n.txt", "offset": 3, "limit": 2})
    assert not err
    assert text.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "6 more lines" in text and "offset=5" in text


async def test_read_file_offset_past_end(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "s.txt").write_text("one\n")
    text, err = await run(registry, ctx, "read_file", {"path": "s.txt", "offset": 9})
    assert err and "has 1 lines" in text


async def test_read_file_refuses_binary_directory_and_missing(registry: ToolRegistry, ctx: ToolContext,
                                                              workspace: Path) -> None:
    (workspace / "img.bin").write_bytes(b"\x89PNG\0\0\x01")
    (workspace / "sub").mkdir()
    for path, words in (("img.bin", "binary"), ("sub", "directory"), ("ghost.txt", "does not exist")):
        text, err = await run(registry, ctx, "read_file", {"path": path})
        assert err and words in text and "Traceback" not in text


async def test_write_file_creates_parents_and_reports(registry: ToolRegistry, ctx: ToolContext,
                                                      workspace: Path) -> None:
    text, err = await run(registry, ctx, "write_file", {"path": "deep/er/new.py", "content": "x = 1\ny = 2\n"})
    assert not err
    assert (workspace / "deep/er/new.py").read_text() == "x = 1\ny = 2\n"
    assert "Created deep/er/new.py" in text and "12 bytes" in text and "2 lines" in text
    text, _ = await run(registry, ctx, "write_file", {"path": "deep/er/new.py", "content": "z\n"})
    assert text.startswith("Overwrote")
    assert workspace / "deep/er/new.py" in ctx.read_paths


async def test_edit_requires_prior_read(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "e.py").write_text("a = 1\n")
    text, err = await run(registry, ctx, "edit_file", {"path": "e.py", "old_string": "1", "new_string": "2"})
    assert err and "read_file" in text
    assert (workspace / "e.py").read_text() == "a = 1\n"


async def _read(registry: ToolRegistry, ctx: ToolContext, path: str) -> None:
    _text, err = await run(registry, ctx, "read_file", {"path": path})
    assert not err


async def test_edit_replaces_unique_match(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "e.py").write_text("a = 1\r\nb = 2\r\n")
    await _read(registry, ctx, "e.py")
    text, err = await run(registry, ctx, "edit_file", {"path": "./e.py", "old_string": "b = 2", "new_string": "b = 3"})
    assert not err and "line 2" in text
    assert (workspace / "e.py").read_bytes() == b"a = 1\r\nb = 3\r\n"  # line endings kept


async def test_edit_ambiguous_lists_lines(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "m.py").write_text("x\nfoo\ny\nfoo\nz\nfoo\n")
    await _read(registry, ctx, "m.py")
    text, err = await run(registry, ctx, "edit_file", {"path": "m.py", "old_string": "foo", "new_string": "bar"})
    assert err and "3 times" in text and "lines 2, 4, 6" in text
    assert (workspace / "m.py").read_text().count("foo") == 3


async def test_edit_near_line_picks_closest(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "m.py").write_text("x\nfoo\ny\nfoo\nz\nfoo\n")
    await _read(registry, ctx, "m.py")
    args = {"path": "m.py", "old_string": "foo", "new_string": "bar", "near_line": 5}
    text, err = await run(registry, ctx, "edit_file", args)
    assert not err and "line 4" in text
    assert (workspace / "m.py").read_text() == "x\nfoo\ny\nbar\nz\nfoo\n"


async def test_edit_replace_all(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "m.py").write_text("foo foo\nfoo\n")
    await _read(registry, ctx, "m.py")
    args = {"path": "m.py", "old_string": "foo", "new_string": "bar", "replace_all": True}
    text, err = await run(registry, ctx, "edit_file", args)
    assert not err and "3 occurrences" in text
    assert (workspace / "m.py").read_text() == "bar bar\nbar\n"


async def test_edit_not_found_hints(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "w.py").write_text("def f():\n    return 1\n")
    await _read(registry, ctx, "w.py")
    base = {"path": "w.py", "new_string": "x"}
    text, err = await run(registry, ctx, "edit_file", {**base, "old_string": "def f():\n  return 1"})
    assert err and "not found" in text and "whitespace" in text
    text, err = await run(registry, ctx, "edit_file", {**base, "old_string": "     2\t    return 1"})
    assert err and "line-number" in text
    text, err = await run(registry, ctx, "edit_file", {**base, "old_string": "nothing like it"})
    assert err and "not found" in text
    assert (workspace / "w.py").read_text() == "def f():\n    return 1\n"


async def test_edit_after_write_needs_no_read(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    await run(registry, ctx, "write_file", {"path": "w.txt", "content": "hello\n"})
    text, err = await run(registry, ctx, "edit_file", {"path": "w.txt", "old_string": "hello", "new_string": "bye"})
    assert not err, text
    assert (workspace / "w.txt").read_text() == "bye\n"
