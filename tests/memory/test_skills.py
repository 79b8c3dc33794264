"""Skills: TOML and Markdown files, where they come from, {{variables}} and their errors, versions."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.memory.skills import SkillError, discover, load_skill, parse_assignments, version_of

REVIEW_TOML = '''
description = "Review a change"
prompt = """Review the {{ language }} code for {{focus}}. Be strict about {{focus}}."""
[settings]
model = "local"
temperature = 0.2
permission_mode = "plan"
token_budget = 20000
[variables]
language = "Python"
'''

DOCS_MD = """---
description: Write docs
default.audience: newcomers
model: local
---
Write documentation for {{audience}} about {{topic}}.
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_toml_skill_with_settings_defaults_and_version(tmp_path):
    path = _write(tmp_path / "review.toml", REVIEW_TOML)
    skill = load_skill(path)
    assert (skill.name, skill.description, skill.variables) == ("review", "Review a change", ["language", "focus"])
    assert skill.settings == {"model": "local", "temperature": 0.2, "permission_mode": "plan", "token_budget": 20000}
    assert skill.version == version_of(path.read_bytes()) and len(skill.version) == 12
    assert skill.render({"focus": "error handling"}) == \
        "Review the Python code for error handling. Be strict about error handling."
    assert skill.render({"focus": "x", "language": "Go"}).startswith("Review the Go code")


def test_markdown_skill_with_front_matter(tmp_path):
    skill = load_skill(_write(tmp_path / "docs.md", DOCS_MD))
    assert skill.defaults == {"audience": "newcomers"} and skill.settings == {"model": "local"}
    assert skill.render({"topic": "the store"}) == "Write documentation for newcomers about the store.\n"


def test_a_markdown_file_without_front_matter_is_all_prompt(tmp_path):
    skill = load_skill(_write(tmp_path / "plain.md", "Just {{x}}."))
    assert skill.render({"x": "this"}) == "Just this.\n" and skill.settings == {}


@pytest.mark.parametrize("values, message", [
    ({}, "needs a value for focus: /skill review focus=…"),
    ({"focus": "a", "colour": "red"}, "has no variable colour; its variables: language, focus"),
])
def test_variable_errors(tmp_path, values, message):
    skill = load_skill(_write(tmp_path / "review.toml", REVIEW_TOML))
    with pytest.raises(SkillError, match=message.replace("(", r"\(").replace("…", ".")):
        skill.render(values)


def test_values_are_not_substituted_again(tmp_path):
    skill = load_skill(_write(tmp_path / "s.md", "A {{a}} B {{b}}"))
    assert skill.render({"a": "{{b}}", "b": "x"}) == "A {{b}} B x\n"


@pytest.mark.parametrize("name, text, message", [
    ("bad.toml", "prompt = ", "not valid TOML"),
    ("empty.toml", 'description = "x"', "needs prompt"),
    ("open.md", "---\ndescription: x\nno end", "never closed"),
    ("weird.md", "---\njust words\n---\nbody", "is not key: value"),
    ("setting.toml", 'prompt = "p"\n[settings]\ncolour = "red"', "unknown setting colour"),
    ("temp.toml", 'prompt = "p"\n[settings]\ntemperature = "hot"', "temperature must be a number"),
    ("mode.toml", 'prompt = "p"\n[settings]\npermission_mode = "yolo"', "permission_mode must be one of"),
    ("body.md", "---\ndescription: x\n---\n\n", "prompt .* is empty"),
])
def test_malformed_skills_are_explained(tmp_path, name, text, message):
    with pytest.raises(SkillError, match=message):
        load_skill(_write(tmp_path / name, text))


def test_discovery_workspace_wins_and_problems_are_listed(tmp_path):
    config, workspace = tmp_path / "config", tmp_path / "ws"
    _write(config / "skills" / "review.toml", REVIEW_TOML)
    _write(config / "skills" / "docs.md", DOCS_MD)
    _write(config / "skills" / "broken.toml", "prompt = ")
    _write(config / "skills" / "notes.txt", "ignored")
    _write(workspace / ".whimbrel" / "skills" / "review.md", "Workspace review of {{focus}}.")
    skills, problems = discover(workspace, config)
    assert list(skills) == ["docs", "review"]
    assert skills["review"].path == workspace / ".whimbrel" / "skills" / "review.md"
    assert len(problems) == 1 and "broken.toml" in problems[0]


def test_assignments():
    assert parse_assignments(["a=1", "b=two words", "c="]) == {"a": "1", "b": "two words", "c": ""}
    with pytest.raises(SkillError, match="not var=value"):
        parse_assignments(["oops"])
