from pathlib import Path

from tests.tools.helpers import prep, run
from tools.context import ToolContext
from tools.preview import diff_for, preview_text
from tools.registry import ToolRegistry


def test_preview_text() -> None:
    assert preview_text("bash", {"command": "make test"}) == "make test"
    assert preview_text("read_file", {"path": "a.py"}) == "a.py"
    assert preview_text("read_file", {"path": "a.py", "offset": 10, "limit": 5}) == "a.py (lines 10–14)"
    assert preview_text("edit_file", {"path": "a.py", "old_string": "x"}) == "a.py"
    assert preview_text("search", {"pattern": "TODO", "path": "src", "glob": "*.py"}) == "/TODO/ in src [*.py]"
    assert preview_text("search", {"pattern": "TODO"}) == "/TODO/ in ."


def test_write_diff_for_new_and_existing_file(ctx: ToolContext, workspace: Path) -> None:
    new = diff_for("write_file", {"path": "pkg/new.txt", "content": "one\ntwo\n"}, ctx)
    assert new.splitlines()[:3] == ["--- a/pkg/new.txt", "+++ b/pkg/new.txt", "@@ -0,0 +1,2 @@"]
    assert "+one" in new and "+two" in new
    assert not (workspace / "pkg").exists()
    (workspace / "old.txt").write_text("keep\nold\n")
    diff = diff_for("write_file", {"path": "old.txt", "content": "keep\nnew"}, ctx)
    assert "-old\n" in diff and "+new\n\\ No newline at end of file" in diff
    assert (workspace / "old.txt").read_text() == "keep\nold\n"


async def test_edit_diff_matches_the_real_edit(registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "m.py").write_text("x\nfoo\ny\nfoo\nz\nfoo\n")
    args = {"path": "m.py", "old_string": "foo", "new_string": "bar", "near_line": 6}
    prepared = prep(registry, ctx, "edit_file", args)
    assert prepared.diff.count("-foo") == 1 and "@@ -3,4 +3,4 @@" in prepared.diff
    all_diff = diff_for("edit_file", {**args, "replace_all": True}, ctx)
    assert all_diff.count("-foo") == 3 and all_diff.count("+bar") == 3
    assert diff_for("edit_file", {**args, "near_line": None}, ctx) == ""  # ambiguous: no diff
    await run(registry, ctx, "read_file", {"path": "m.py"})
    await run(registry, ctx, "edit_file", args)
    assert (workspace / "m.py").read_text() == "x\nfoo\ny\nfoo\nz\nbar\n"


def test_diff_label_outside_workspace(ctx: ToolContext, tmp_path: Path) -> None:
    diff = diff_for("write_file", {"path": str(tmp_path / "out.txt"), "content": "a\n"}, ctx)
    assert diff.startswith(f"--- a/{str(tmp_path / 'out.txt').lstrip('/')}")
    assert diff_for("bash", {"command": "ls"}, ctx) == ""
