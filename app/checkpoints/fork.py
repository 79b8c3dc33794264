"""Fork a workstream at one of its messages: a new workstream with the conversation up to the end of
that turn, linked to its parent (the resume browser draws forks as a tree). With `files`, the
workspace is also put back as it was at that point, journalled like a rewind (so it can be undone)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.checkpoints import records
from app.checkpoints.rewind import RewindError, Rewinder
from app.checkpoints.shadow import RestoreResult


@dataclass
class ForkResult:
    """The new workstream, where its history stops, and what restoring the files did (if asked)."""

    child_id: str
    upto_seq: int
    turns: int
    restored: RestoreResult | None = None


def fork_point(turns: list[records.UserTurn], keep: int | None, last_seq: int) -> tuple[int, int]:
    """(upto_seq, turns kept) for keeping the first `keep` user turns (all when None)."""
    if not turns:
        raise RewindError("There is nothing to fork yet: this workstream has no messages.")
    if keep is None or keep >= len(turns):
        return last_seq, len(turns)
    if keep < 1:
        raise RewindError(f"Choose a message from 1 to {len(turns)} to fork from.")
    return turns[keep].seq - 1, keep


async def fork(store: Any, rewinder: Rewinder, *, parent_title: str, workdir: str, model: str | None,
               keep: int | None = None, files: bool = False) -> ForkResult:
    """Create the fork (and, with `files`, restore the workspace to its fork point)."""
    parent = rewinder.workstream_id
    turns = await store.run(records.user_turns, store.store, parent)
    last = await store.run(records.last_seq, store.store, parent)
    upto, kept = fork_point(turns, keep, last)
    child = await store.run(records.fork_workstream, store.store, parent, upto,
                            title=f"{parent_title} · fork at {kept}", workdir=workdir, model=model)
    result = ForkResult(child, upto, kept)
    if files:
        later = [c for c in await store.run(records.list_checkpoints, store.store, parent) if c.user_seq > upto]
        if later:
            result.restored = await Rewinder(store, rewinder.repo, child).files_to(later[0].before_tree)
        else:
            result.restored = RestoreResult()
    return result


def tree_order(items: list[Any], parents: dict[str, str]) -> list[tuple[Any, int]]:
    """`items` (each with an `.id`, in the caller's order) as a tree: every fork right under its
    parent, with its depth (0 for a workstream that is no fork, or whose parent is not listed)."""
    listed = {item.id for item in items}
    children: dict[str, list[Any]] = {}
    roots = []
    for item in items:
        parent = parents.get(item.id)
        if parent in listed and parent != item.id:
            children.setdefault(parent, []).append(item)
        else:
            roots.append(item)
    ordered: list[tuple[Any, int]] = []
    seen: set[str] = set()

    def visit(item: Any, depth: int) -> None:
        if item.id in seen:
            return
        seen.add(item.id)
        ordered.append((item, depth))
        for child in children.get(item.id, []):
            visit(child, depth + 1)

    for root in roots:
        visit(root, 0)
    return ordered
