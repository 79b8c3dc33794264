"""`whimbrel export` / `whimbrel import` against real SQLite stores in two data dirs: messages, tool
calls, usage, title and alias travel; a newer schema is refused; nothing existing is overwritten."""

from __future__ import annotations

import json
from pathlib import Path

from app.cli import main
from app.storage.migrations import MIGRATIONS
from app.storage.store import Store
from app.vocabulary.messages import Message, ToolCall


def seeded(data_dir: Path) -> str:
    data_dir.mkdir(parents=True, exist_ok=True)
    store = Store(data_dir / "whimbrel.db")
    ws = store.create_workstream(title="Fix the greeting", model="qwen", workdir="/src/app")
    store.update_workstream(ws, alias="greet")
    for message in (Message("user", "make greet() polite"),
                    Message("assistant", "Editing.", tool_calls=[ToolCall("call_1", "write_file",
                                                                          '{"path": "g.py", "content": "hi"}')]),
                    Message("tool", "wrote g.py", tool_call_id="call_1", name="write_file"),
                    Message("assistant", "Done: `greet()` now says hello.")):
        store.add_message(ws, message)
    store.add_usage(ws, model="qwen", prompt_tokens=120, completion_tokens=30, turn=1)
    store.close()
    return ws


def stored(data_dir: Path):
    store = Store(data_dir / "whimbrel.db")
    try:
        return [(w, store.load_messages(w.id), store.list_usage(w.id)) for w in store.list_workstreams()]
    finally:
        store.close()


def test_export_then_import_moves_the_whole_workstream(tmp_path, capsys):
    here, there, file = tmp_path / "here", tmp_path / "there", tmp_path / "greet.json"
    original = seeded(here)
    assert main(["export", "greet", "--data-dir", str(here), "-o", str(file)]) == 0
    data = json.loads(file.read_text())
    assert data["schema_version"] == MIGRATIONS[-1][0] and data["workstream"]["id"] == original
    assert main(["import", str(file), "--data-dir", str(there)]) == 0
    assert "Imported as" in capsys.readouterr().out
    [(info, messages, usage)] = stored(there)
    assert (info.title, info.alias, info.model) == ("Fix the greeting", "greet", "qwen")
    assert [(m.role, m.content) for m in messages] == [
        ("user", "make greet() polite"), ("assistant", "Editing."), ("tool", "wrote g.py"),
        ("assistant", "Done: `greet()` now says hello.")]
    assert messages[1].tool_calls == [ToolCall("call_1", "write_file", '{"path": "g.py", "content": "hi"}')]
    assert messages[2].tool_call_id == "call_1"
    assert [(u.model, u.prompt_tokens, u.completion_tokens) for u in usage] == [("qwen", 120, 30)]


def test_import_never_overwrites_and_leaves_a_taken_alias_off(tmp_path, capsys):
    here, file = tmp_path / "here", tmp_path / "greet.json"
    original = seeded(here)
    assert main(["export", original[:8], "--data-dir", str(here), "-o", str(file)]) == 0
    assert main(["import", str(file), "--data-dir", str(here)]) == 0  # into the same store
    out = capsys.readouterr().out
    assert "alias 'greet' is taken" in out and "left as it was" in out
    rows = {info.id: (info, messages) for info, messages, _ in stored(here)}
    assert len(rows) == 2 and rows[original][0].alias == "greet" and len(rows[original][1]) == 4
    [copy] = [info for wid, (info, _) in rows.items() if wid != original]
    assert copy.alias is None and copy.title == "Fix the greeting"


def test_a_file_from_a_newer_schema_is_refused_and_nothing_changes(tmp_path, capsys):
    here, there, file = tmp_path / "here", tmp_path / "there", tmp_path / "greet.json"
    seeded(here)
    seeded(there)
    main(["export", "greet", "--data-dir", str(here), "-o", str(file)])
    data = json.loads(file.read_text())
    data["schema_version"] = MIGRATIONS[-1][0] + 1
    file.write_text(json.dumps(data))
    assert main(["import", str(file), "--data-dir", str(there)]) == 1
    assert "comes from a newer Whimbrel" in capsys.readouterr().err
    assert len(stored(there)) == 1


def test_bad_files_and_unknown_workstreams_are_explained(tmp_path, capsys):
    here = tmp_path / "here"
    seeded(here)
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    assert main(["import", str(tmp_path / "bad.json"), "--data-dir", str(here)]) == 1
    assert main(["import", str(tmp_path / "other.json"), "--data-dir", str(here)]) == 1
    assert main(["import", str(tmp_path / "missing.json"), "--data-dir", str(here)]) == 1
    assert main(["export", "nope", "--data-dir", str(here)]) == 1
    err = capsys.readouterr().err
    assert "is not JSON" in err and "not a Whimbrel workstream export" in err and "missing.json" in err
    assert "no workstream matches 'nope'" in err
    assert "Traceback" not in err


def test_markdown_export_reads_as_a_transcript(tmp_path, capsys):
    here = tmp_path / "here"
    seeded(here)
    assert main(["export", "greet", "--format", "md", "--data-dir", str(here)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Fix the greeting") and "write_file" in out and "now says hello" in out


def test_a_markdown_export_offered_to_import_says_which_export_imports(tmp_path, capsys):
    here, there = tmp_path / "here", tmp_path / "there"
    seeded(here)
    assert main(["export", "greet", "--format", "md", "--data-dir", str(here), "-o", str(tmp_path / "t.md")]) == 0
    assert main(["import", str(tmp_path / "t.md"), "--data-dir", str(there)]) == 1
    err = capsys.readouterr().err
    assert "is Markdown: a Markdown transcript is for reading and cannot be imported" in err
    assert "`whimbrel export ID` writes by default" in err and "not JSON" not in err
    assert main(["export", "greet", "--data-dir", str(here), "-o", str(tmp_path / "t.json")]) == 0  # the default
    assert main(["import", str(tmp_path / "t.json"), "--data-dir", str(there)]) == 0
    from app.transfer.workstream_transfer import build_parser

    for verb in ("export", "import"):  # each help says which is which
        said = " ".join(build_parser(verb).format_help().split())
        assert "cannot be imported" in said and "`whimbrel export`" in said or "`whimbrel import` reads" in said
