import asyncio
import os
from pathlib import Path

from tests.tools.helpers import call, prep, run
from tools.context import ToolContext
from tools.pipeline import PreparedCall, approval_reason, execute, prepare
from tools.registry import ToolRegistry, ToolSpec


def test_unknown_tool_lists_available(registry: ToolRegistry, ctx: ToolContext) -> None:
    prepared = prep(registry, ctx, "rm_rf", {})
    assert prepared.spec is None
    assert "Unknown tool 'rm_rf'" in prepared.error and "read_file" in prepared.error  # type: ignore[operator]


def test_name_whitespace_is_stripped(registry: ToolRegistry, ctx: ToolContext) -> None:
    prepared = prepare(call(" bash\n", {"command": "ls"}), registry, ctx)
    assert prepared.error is None and prepared.args == {"command": "ls"} and prepared.preview == "ls"


def test_bare_string_goes_to_primary_key(registry: ToolRegistry, ctx: ToolContext) -> None:
    assert prep(registry, ctx, "bash", "ls -la").args == {"command": "ls -la"}
    assert prep(registry, ctx, "read_file", '"notes.md"').args == {"path": "notes.md"}
    assert prep(registry, ctx, "search", "  def \\w+  ").args == {"pattern": "def \\w+"}


def test_empty_arguments_are_an_empty_object(registry: ToolRegistry, ctx: ToolContext) -> None:
    prepared = prep(registry, ctx, "bash", "")
    assert prepared.args == {}
    assert "missing required argument 'command'" in prepared.error  # type: ignore[operator]


def test_invalid_json_without_primary_key(registry: ToolRegistry, ctx: ToolContext) -> None:
    prepared = prep(registry, ctx, "edit_file", "x" * 300)
    assert prepared.error is not None
    assert "must be a JSON object" in prepared.error and "x" * 200 + "'…" in prepared.error
    assert "x" * 201 not in prepared.error


def test_broken_json_object_is_not_a_bare_string(registry: ToolRegistry, ctx: ToolContext) -> None:
    prepared = prep(registry, ctx, "bash", '{"command": "ls')
    assert prepared.args is None
    assert "not valid JSON" in prepared.error  # type: ignore[operator]


def test_schema_violation_names_the_field(registry: ToolRegistry, ctx: ToolContext) -> None:
    prepared = prep(registry, ctx, "read_file", {"path": "a", "offset": "ten"})
    assert "argument 'offset'" in prepared.error and "integer" in prepared.error  # type: ignore[operator]
    prepared = prep(registry, ctx, "edit_file", {"path": "a", "old_string": "x"})
    assert "missing required argument 'new_string'" in prepared.error  # type: ignore[operator]
    assert prepared.diff == ""


async def test_errors_come_back_as_tool_results(registry: ToolRegistry, ctx: ToolContext) -> None:
    text, err = await run(registry, ctx, "read_file", {"offset": 1})
    assert err and text.startswith("Invalid arguments for read_file")


def test_outside_paths(registry: ToolRegistry, ctx: ToolContext, workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s")
    os.symlink(tmp_path / "secret.txt", workspace / "link.txt")
    assert prep(registry, ctx, "read_file", {"path": "../secret.txt"}).outside_paths == [str(tmp_path / "secret.txt")]
    assert prep(registry, ctx, "read_file", {"path": "link.txt"}).outside_paths == [str(tmp_path / "secret.txt")]
    assert prep(registry, ctx, "search", {"pattern": "x", "path": "/"}).outside_paths == ["/"]
    assert prep(registry, ctx, "read_file", {"path": "sub/../ok.txt"}).outside_paths == []
    assert prep(registry, ctx, "search", {"pattern": "x"}).outside_paths == []


def test_paths_are_resolved_once_and_the_diff_follows_the_resolved_path(
        registry: ToolRegistry, ctx: ToolContext, workspace: Path) -> None:
    """prepare resolves each path argument once; the diff is made from that same resolved path."""
    (workspace / "real.txt").write_text("old\n")
    os.symlink(workspace / "real.txt", workspace / "alias.txt")
    prepared = prep(registry, ctx, "edit_file", {"path": "alias.txt", "old_string": "old", "new_string": "new"})
    assert prepared.resolved_paths == {"path": (workspace / "real.txt").resolve()}
    assert "-old" in prepared.diff and "+new" in prepared.diff


def test_approval_reason(registry: ToolRegistry, ctx: ToolContext) -> None:
    read = prep(registry, ctx, "read_file", {"path": "a.txt"})
    assert approval_reason(read, set()) is None
    bash = prep(registry, ctx, "bash", {"command": "ls"})
    assert approval_reason(bash, set()) == "runs a shell command"
    assert approval_reason(bash, {"bash"}) is None
    write = prep(registry, ctx, "write_file", {"path": "a.txt", "content": ""})
    assert approval_reason(write, set()) == "writes a file"
    outside = prep(registry, ctx, "read_file", {"path": "/etc/hostname"})
    assert approval_reason(outside, set()) == "path outside the workspace: /etc/hostname"
    outside_write = prep(registry, ctx, "write_file", {"path": "/etc/x", "content": ""})
    assert approval_reason(outside_write, {"write_file"}).startswith("path outside the workspace")  # type: ignore[union-attr]
    assert approval_reason(prep(registry, ctx, "nope", {}), set()) is None


def _spec(name: str, impl) -> ToolSpec:  # noqa: ANN001
    schema = {"type": "function", "function": {"name": name, "description": "", "parameters": {"type": "object"}}}
    return ToolSpec(name, schema, impl, auto_approve=True)


async def test_execute_turns_exceptions_into_text(ctx: ToolContext) -> None:
    async def missing(args, ctx):  # noqa: ANN001
        open("/definitely/not/here")

    async def buggy(args, ctx):  # noqa: ANN001
        raise ValueError("bad value")

    registry = ToolRegistry()
    registry.register(_spec("missing", missing))
    registry.register(_spec("buggy", buggy))
    text, err = await run(registry, ctx, "missing", {})
    assert err and text == "missing failed: No such file or directory: /definitely/not/here"
    text, err = await run(registry, ctx, "buggy", {})
    assert err and text.startswith("buggy failed because of an internal error in Whimbrel")
    assert "ValueError" not in text and "bad value" not in text  # Python's text goes to the log only


async def test_execute_truncates_and_safeguards(workspace: Path) -> None:
    async def chatty(args, ctx):  # noqa: ANN001
        return "h" * 500 + "t" * 500

    async def stuck(args, ctx):  # noqa: ANN001
        await asyncio.sleep(60)

    registry = ToolRegistry()
    registry.register(_spec("chatty", chatty))
    registry.register(_spec("stuck", stuck))
    ctx = ToolContext(workspace=workspace, output_limit=100)
    text, err = await run(registry, ctx, "chatty", {})
    assert not err and text.startswith("h" * 50) and text.endswith("t" * 50) and "900 characters omitted" in text
    import tools.pipeline as pipeline
    ctx = ToolContext(workspace=workspace, bash_timeout=0.1)
    original, pipeline.SAFEGUARD_MARGIN = pipeline.SAFEGUARD_MARGIN, 0.1
    try:
        text, err = await run(registry, ctx, "stuck", {})
    finally:
        pipeline.SAFEGUARD_MARGIN = original
    assert err and "did not finish within" in text


async def test_execute_of_failed_preparation(ctx: ToolContext) -> None:
    prepared = PreparedCall(call("x", "{}"), None, None, error="nope")
    assert await execute(prepared, ctx) == ("nope", True)
