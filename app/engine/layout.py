"""The split-pane layout: a binary tree whose leaves each show one workstream.

Pure data (no Textual): the UI asks `regions(width, height)` where to draw each workstream,
and persists `to_dict()` so the same panes come back after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

Direction = Literal["horizontal", "vertical"]  # horizontal: side by side; vertical: stacked
MAX_PANES = 6
SUBAGENT_LEAF = "subagent:"  # a leaf watching a workstream's sub-agent: "subagent:<workstream>/<agent>"


def subagent_leaf(workstream: str, agent: str) -> str:
    """The leaf name of a pane that watches sub-agent `agent` of `workstream` (never restored: no
    workstream has that id, so `from_dict` drops it)."""
    return f"{SUBAGENT_LEAF}{workstream}/{agent}"


def is_workstream_leaf(leaf: str) -> bool:
    return not leaf.startswith(SUBAGENT_LEAF)


@dataclass
class Leaf:
    workstream: str


@dataclass
class Split:
    direction: Direction
    first: "Node"
    second: "Node"


Node = Union[Leaf, Split]


class LayoutError(ValueError):
    """A layout operation that cannot be done (pane limit, unknown workstream)."""


class LayoutTree:
    """Binary layout of up to MAX_PANES panes; each workstream appears in at most one pane."""

    def __init__(self, root: Node) -> None:
        self.root = root

    @classmethod
    def single(cls, workstream: str) -> LayoutTree:
        return cls(Leaf(workstream))

    # -- queries -------------------------------------------------------------------------
    def leaves(self) -> list[str]:
        """Workstreams in pane order (left-to-right, top-to-bottom)."""
        out: list[str] = []

        def walk(node: Node) -> None:
            if isinstance(node, Leaf):
                out.append(node.workstream)
            else:
                walk(node.first)
                walk(node.second)

        walk(self.root)
        return out

    def __contains__(self, workstream: str) -> bool:
        return workstream in self.leaves()

    def regions(self, width: int, height: int) -> dict[str, tuple[int, int, int, int]]:
        """(x, y, width, height) for each shown workstream, splitting space in halves."""
        out: dict[str, tuple[int, int, int, int]] = {}

        def place(node: Node, x: int, y: int, w: int, h: int) -> None:
            if isinstance(node, Leaf):
                out[node.workstream] = (x, y, w, h)
            elif node.direction == "horizontal":
                left = w // 2
                place(node.first, x, y, left, h)
                place(node.second, x + left, y, w - left, h)
            else:
                top = h // 2
                place(node.first, x, y, w, top)
                place(node.second, x, y + top, w, h - top)

        place(self.root, 0, 0, width, height)
        return out

    # -- changes -------------------------------------------------------------------------
    def split(self, target: str, new: str, direction: Direction) -> None:
        """Split the pane showing `target`; `new` goes in the second half."""
        if len(self.leaves()) >= MAX_PANES:
            raise LayoutError(f"at most {MAX_PANES} panes")
        if new in self:
            raise LayoutError("that workstream is already shown in a pane")
        self.root = self._replace(self.root, target, lambda leaf: Split(direction, leaf, Leaf(new)))

    def close(self, workstream: str) -> None:
        """Remove the pane showing `workstream`; its sibling takes the space. The last pane stays."""
        if isinstance(self.root, Leaf):
            raise LayoutError("the last pane cannot be closed")

        def remove(node: Node) -> Node | None:
            if isinstance(node, Leaf):
                return None if node.workstream == workstream else node
            first, second = remove(node.first), remove(node.second)
            if first is None:
                return second
            if second is None:
                return first
            return Split(node.direction, first, second)

        result = remove(self.root)
        if result is None or workstream not in self:
            raise LayoutError("no pane shows that workstream")
        self.root = result

    def show(self, target: str, workstream: str) -> None:
        """Put `workstream` in the pane currently showing `target`."""
        if workstream in self:
            raise LayoutError("that workstream is already shown in a pane")

        def swap(leaf: Leaf) -> Node:
            return Leaf(workstream)

        self.root = self._replace(self.root, target, swap)

    def _replace(self, node: Node, target: str, change) -> Node:
        if isinstance(node, Leaf):
            return change(node) if node.workstream == target else node
        return Split(node.direction, self._replace(node.first, target, change),
                     self._replace(node.second, target, change))

    def workstream_leaves(self) -> list[str]:
        """The panes that show a workstream (not a sub-agent), in pane order."""
        return [leaf for leaf in self.leaves() if is_workstream_leaf(leaf)]

    def next_to(self, workstream: str, step: int = 1) -> str:
        """The workstream in the next (or previous) workstream pane, cycling (sub-agent panes are skipped)."""
        leaves = self.workstream_leaves() or self.leaves()
        index = leaves.index(workstream) if workstream in leaves else 0
        return leaves[(index + step) % len(leaves)]

    # -- persistence ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        def encode(node: Node) -> dict:
            if isinstance(node, Leaf):
                return {"ws": node.workstream}
            return {"dir": node.direction, "a": encode(node.first), "b": encode(node.second)}

        return encode(self.root)

    @classmethod
    def from_dict(cls, data: dict, known: set[str]) -> LayoutTree | None:
        """Rebuild a saved layout, dropping panes whose workstream no longer exists."""

        def decode(item: dict) -> Node | None:
            if "ws" in item:
                return Leaf(item["ws"]) if item["ws"] in known else None
            if not isinstance(item.get("a"), dict) or not isinstance(item.get("b"), dict):
                return None
            first, second = decode(item["a"]), decode(item["b"])
            if first is None or second is None:
                return first or second
            direction = item.get("dir") if item.get("dir") in ("horizontal", "vertical") else "horizontal"
            return Split(direction, first, second)

        try:
            root = decode(data)
        except (AttributeError, TypeError):
            return None
        if root is None:
            return None
        tree = cls(root)
        leaves = tree.leaves()
        if len(leaves) != len(set(leaves)) or len(leaves) > MAX_PANES:
            return None
        return tree
