"""Project instructions: which files load, in which order, imports and their loops."""

from __future__ import annotations

from pathlib import Path

from app.memory.instructions import imports, load


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_order_workspace_then_parents_to_the_repo_root_then_user(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    workspace = repo / "packages" / "api"
    _write(tmp_path / "AGENTS.md", "above the repository: never loaded")
    _write(repo / "AGENTS.md", "repo agents")
    _write(repo / "WHIMBREL.md", "repo whimbrel")
    _write(repo / "CLAUDE.md", "repo claude: skipped, the directory has AGENTS.md")
    _write(repo / "packages" / "CLAUDE.md", "packages claude")
    _write(workspace / "WHIMBREL.md", "api whimbrel")
    config = _write(tmp_path / "config" / "AGENTS.md", "user level").parent
    loaded = load(workspace, config)
    assert [(f.path.relative_to(tmp_path).as_posix(), f.via) for f in loaded.files] == [
        ("repo/packages/api/WHIMBREL.md", "workspace"),
        ("repo/packages/CLAUDE.md", "parent"),
        ("repo/AGENTS.md", "parent"),
        ("repo/WHIMBREL.md", "parent"),
        ("config/AGENTS.md", "user"),
    ]
    text = loaded.render()
    assert text.index("api whimbrel") < text.index("packages claude") < text.index("repo agents") < \
        text.index("user level")
    assert "never loaded" not in text and "skipped" not in text


def test_without_a_repository_only_the_workspace(tmp_path):
    _write(tmp_path / "AGENTS.md", "parent")
    _write(tmp_path / "ws" / "AGENTS.md", "workspace")
    assert [f.text for f in load(tmp_path / "ws", None).files] == ["workspace"]
    assert load(tmp_path / "empty", None).render() == ""


def test_imports_are_relative_to_the_file_and_loops_are_noted(tmp_path):
    _write(tmp_path / "AGENTS.md", "Read @docs/style.md and @./missing.md first.")
    _write(tmp_path / "docs" / "style.md", "Style: tabs. See @../rules/more.md")
    _write(tmp_path / "rules" / "more.md", "More rules, and back to @../docs/style.md")
    loaded = load(tmp_path, None)
    assert [f.path.relative_to(tmp_path).as_posix() for f in loaded.files] == [
        "AGENTS.md", "docs/style.md", "rules/more.md"]
    assert loaded.files[1].via == "@import from AGENTS.md"
    assert any("missing.md not found" in note for note in loaded.notes)
    assert any(note.startswith("import loop skipped") and note.endswith("docs/style.md") for note in loaded.notes)


def test_a_file_importing_itself(tmp_path):
    _write(tmp_path / "AGENTS.md", "me: @AGENTS.md")
    loaded = load(tmp_path, None)
    assert len(loaded.files) == 1 and "import loop" in loaded.notes[0]


def test_imports_ignore_code_and_email_addresses():
    text = "Mail ada@example.com, ask @alice\n`@not/this.md`\n```\n@inside/fence.md\n```\nBut @yes/this.md."
    assert imports(text) == ["yes/this.md"]


def test_subdirectory_instructions_join_when_a_file_there_is_touched(tmp_path):
    _write(tmp_path / "AGENTS.md", "root")
    _write(tmp_path / "web" / "AGENTS.md", "web rules")
    _write(tmp_path / "web" / "src" / "CLAUDE.md", "web src rules")
    _write(tmp_path / "web" / "src" / "app.ts", "x")
    loaded = load(tmp_path, None)
    assert [f.text for f in loaded.add_for_paths([tmp_path / "web" / "src" / "app.ts"], tmp_path)] == [
        "web rules", "web src rules"]
    assert loaded.add_for_paths([tmp_path / "web" / "src" / "app.ts"], tmp_path) == []  # once
    assert loaded.add_for_paths([tmp_path.parent / "outside.txt", tmp_path / "top.txt"], tmp_path) == []
    assert [f.via for f in loaded.files] == ["workspace", "subdirectory", "subdirectory"]


def test_imports_never_reach_outside_the_project_or_the_config_dir(tmp_path):
    secret = _write(tmp_path / "home" / ".aws" / "credentials", "aws_secret_access_key = SECRET")
    project = tmp_path / "project"
    _write(project / "AGENTS.md", f"See @../home/.aws/credentials and @{secret} and @docs/ok.md")
    _write(project / "docs" / "ok.md", "fine")
    config = _write(tmp_path / "config" / "AGENTS.md", "user: @prefs.md").parent
    _write(config / "prefs.md", "short answers")
    loaded = load(project, config)
    assert "SECRET" not in loaded.render()
    assert [f.text for f in loaded.files] == [f"See @../home/.aws/credentials and @{secret} and @docs/ok.md",
                                              "fine", "user: @prefs.md", "short answers"]
    assert sum("outside the project" in note for note in loaded.notes) == 2
