"""Property test: random turns of create / edit / delete / rename / chmod, done by the real file tools
and by real bash, each turn checkpointed; then rewinding the files to before any turn (in any order)
gives that tree back byte for byte, and undoing the rewind gives the final tree back."""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.checkpoints.rewind import Rewinder
from app.checkpoints.shadow import ShadowRepo
from app.checkpoints.turns import TurnCheckpoints
from app.storage.async_store import AsyncStore
from app.vocabulary.messages import Message, ToolCall
from tests.checkpoints.harness import tree_state
from tools.context import ToolContext
from tools.pipeline import execute, prepare
from tools.registry import ToolRegistry

PATHS = ("a.txt", "b.bin", "d/c.txt", "d/e/f.sh")
CONTENTS = st.one_of(st.text(alphabet="xyz \n", max_size=40), st.binary(max_size=40).map(lambda b: b"\0" + b))

write = st.tuples(st.just("write"), st.sampled_from(PATHS), CONTENTS, st.sampled_from(["tool", "bash"]))
delete = st.tuples(st.just("delete"), st.sampled_from(PATHS))
rename = st.tuples(st.just("rename"), st.sampled_from(PATHS), st.sampled_from(PATHS))
chmod = st.tuples(st.just("chmod"), st.sampled_from(PATHS), st.booleans())
TURNS = st.lists(st.lists(st.one_of(write, delete, rename, chmod), min_size=1, max_size=4), min_size=1, max_size=4)

REGISTRY = ToolRegistry.load_builtin()


async def run_tool(ctx: ToolContext, name: str, arguments: dict) -> None:
    item = prepare(ToolCall("c", name, json.dumps(arguments)), REGISTRY, ctx)
    assert not item.error, item.error
    await execute(item, ctx)


async def bash(ctx: ToolContext, command: str) -> None:
    await run_tool(ctx, "bash", {"command": command})


async def apply(ctx: ToolContext, op: tuple) -> None:
    kind, path = op[0], op[1]
    quoted = shlex.quote(path)
    if kind == "write":
        content, how = op[2], op[3]
        if how == "tool" and isinstance(content, str):
            await run_tool(ctx, "write_file", {"path": path, "content": content})
        else:
            data = content.encode() if isinstance(content, str) else content
            octal = "".join(f"\\{b:03o}" for b in data)
            await bash(ctx, f"mkdir -p \"$(dirname {quoted})\" && printf '{octal}' > {quoted}")
    elif kind == "delete":
        await bash(ctx, f"rm -f {quoted}")
    elif kind == "rename":
        target = shlex.quote(op[2])
        await bash(ctx, f"if [ -f {quoted} ] && [ {quoted} != {target} ]; then mkdir -p \"$(dirname {target})\" "
                        f"&& mv {quoted} {target}; fi")
    elif kind == "chmod":
        await bash(ctx, f"[ -f {quoted} ] && chmod {'+x' if op[2] else '-x'} {quoted} || true")


async def scenario(root: Path, turns: list[list[tuple]], order: list[int]) -> None:
    workspace, data = root / "ws", root / "data"
    workspace.mkdir()
    data.mkdir()
    (workspace / "a.txt").write_text("start\n")
    store = await AsyncStore.open(data / "whimbrel.db")
    try:
        workstream_id = await store.create_workstream(title="p", workdir=str(workspace))
        repo = ShadowRepo(data, workspace)
        checkpoints = TurnCheckpoints(store, repo, workstream_id)
        ctx = ToolContext(workspace=workspace, bash_timeout=30)
        states = []
        for number, ops in enumerate(turns):
            states.append(tree_state(workspace))
            message = Message(role="user", content=f"turn {number}")
            await store.add_message(workstream_id, message)
            await checkpoints.begin(message)
            for op in ops:
                await apply(ctx, op)
            await checkpoints.end([])
            await store.add_message(workstream_id, Message(role="assistant", content="ok"))
        final = tree_state(workspace)
        rewinder = Rewinder(store, repo, workstream_id)
        summaries = await rewinder.turns()
        for index in order:
            await rewinder.apply(await rewinder.plan(summaries[index].turn.seq), "files")
            assert tree_state(workspace) == states[index], f"rewind to before turn {index}"
            await rewinder.undo()
            assert tree_state(workspace) == final, f"undo of the rewind to turn {index}"
    finally:
        await store.aclose()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=TURNS, data=st.data())
def test_rewind_to_any_turn_restores_the_tree_byte_for_byte(turns, data):
    order = data.draw(st.permutations(range(len(turns))))
    root = Path(tempfile.mkdtemp(prefix="whimbrel-property-"))
    try:
        asyncio.run(scenario(root, turns, list(order)))
    finally:
        shutil.rmtree(root, ignore_errors=True)
