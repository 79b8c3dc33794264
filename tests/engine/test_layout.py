"""The split-pane layout tree: splitting, closing, regions and persistence."""

from __future__ import annotations

import pytest

from app.engine.layout import MAX_PANES, LayoutError, LayoutTree


def test_split_places_panes_side_by_side_and_stacked():
    tree = LayoutTree.single("a")
    tree.split("a", "b", "horizontal")
    tree.split("b", "c", "vertical")
    assert tree.leaves() == ["a", "b", "c"]
    assert tree.regions(100, 40) == {"a": (0, 0, 50, 40), "b": (50, 0, 50, 20), "c": (50, 20, 50, 20)}


def test_regions_cover_odd_sizes_without_gaps():
    tree = LayoutTree.single("a")
    tree.split("a", "b", "horizontal")
    regions = tree.regions(101, 33)
    assert regions["a"][2] + regions["b"][2] == 101


def test_close_gives_space_to_sibling_and_keeps_last_pane():
    tree = LayoutTree.single("a")
    tree.split("a", "b", "horizontal")
    tree.split("b", "c", "vertical")
    tree.close("b")
    assert tree.leaves() == ["a", "c"]
    assert tree.regions(100, 40)["c"] == (50, 0, 50, 40)
    tree.close("a")
    with pytest.raises(LayoutError):
        tree.close("c")


def test_pane_limit_and_uniqueness():
    tree = LayoutTree.single("w0")
    for n in range(1, MAX_PANES):
        tree.split(f"w{n - 1}", f"w{n}", "horizontal" if n % 2 else "vertical")
    with pytest.raises(LayoutError, match="at most 6"):
        tree.split("w0", "w9", "horizontal")
    small = LayoutTree.single("a")
    with pytest.raises(LayoutError):
        small.split("a", "a", "horizontal")


def test_show_replaces_the_workstream_in_a_pane():
    tree = LayoutTree.single("a")
    tree.split("a", "b", "vertical")
    tree.show("a", "c")
    assert tree.leaves() == ["c", "b"]
    with pytest.raises(LayoutError):
        tree.show("c", "b")


def test_round_trip_and_dropping_unknown_workstreams():
    tree = LayoutTree.single("a")
    tree.split("a", "b", "horizontal")
    tree.split("a", "c", "vertical")
    data = tree.to_dict()
    assert LayoutTree.from_dict(data, {"a", "b", "c"}).leaves() == ["a", "c", "b"]
    assert LayoutTree.from_dict(data, {"a", "b"}).leaves() == ["a", "b"]
    assert LayoutTree.from_dict(data, set()) is None
    assert LayoutTree.from_dict({"nonsense": 1}, {"a"}) is None


def test_next_to_cycles():
    tree = LayoutTree.single("a")
    tree.split("a", "b", "horizontal")
    assert tree.next_to("a") == "b" and tree.next_to("b") == "a" and tree.next_to("a", -1) == "b"


def test_sub_agent_panes_are_skipped_by_focus_and_never_restored():
    from app.engine.layout import subagent_leaf

    tree = LayoutTree.single("a")
    tree.split("a", "b", "horizontal")
    tree.split("a", subagent_leaf("a", "task-1"), "vertical")
    assert tree.workstream_leaves() == ["a", "b"]
    assert tree.next_to("a") == "b" and tree.next_to("b") == "a"  # F2 never lands on a sub-agent's pane
    restored = LayoutTree.from_dict(tree.to_dict(), known={"a", "b"})
    assert restored.leaves() == ["a", "b"]  # after a restart the sub-agent has gone, and so has its pane
