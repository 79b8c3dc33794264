"""The first frame's quick look at the saved tabs (app/storage/peek.py): what it reads, and that
anything unexpected means "nothing to show" rather than an error."""

from __future__ import annotations

from app.storage.peek import saved_tabs
from app.storage.store import Store
from app.vocabulary.messages import Message


def test_reads_names_in_order_and_falls_back_to_the_first_tab_without_a_layout(tmp_path):
    store = Store(tmp_path / "whimbrel.db")
    try:
        first = store.create_workstream(title="first")
        aliased = store.create_workstream(title="ignored")
        store.update_workstream(aliased, alias="api")
        untitled = store.create_workstream()
        for workstream_id in (first, aliased, untitled):
            store.add_message(workstream_id, Message(role="user", content="x"))
        store.set_app_state("tabs", [first, aliased, untitled, "deleted-since"])
        store.set_app_state("focused", aliased)  # without a saved layout boot focuses the first tab
        store.set_config(first, "model_alias", "big")
    finally:
        store.close()
    saved = saved_tabs(tmp_path / "whimbrel.db")
    assert saved.names == ["first", "api", "new workstream"]
    assert saved.focused == 0 and saved.model_alias == "big" and saved.mode is None


def test_no_file_a_foreign_file_or_no_tabs_show_nothing(tmp_path):
    assert saved_tabs(tmp_path / "missing.db") is None
    (tmp_path / "junk.db").write_text("not a database")
    assert saved_tabs(tmp_path / "junk.db") is None
    Store(tmp_path / "empty.db").close()
    assert saved_tabs(tmp_path / "empty.db") is None
