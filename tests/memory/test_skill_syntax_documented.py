"""The README's account of a skill's {{variable}} syntax, done literally: its example file loads, and the
two /skill lines it shows give the prompts it says they give."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from app.memory.skills import load_skill, parse_assignments

README = Path(__file__).parents[2] / "README.md"


def test_the_readme_states_the_placeholder_syntax_and_its_example_works(tmp_path):
    text = README.read_text()
    assert "A variable in a skill's prompt is written `{{name}}`" in text
    example = re.search(r"For example `\.whimbrel/skills/(\w+)\.toml`:\n\s*```toml\n(.*?)```", text, re.S)
    assert example, "the README's example skill"
    name, body = example.group(1), "\n".join(line.strip() for line in example.group(2).splitlines())
    path = tmp_path / f"{name}.toml"
    path.write_text(body)
    skill = load_skill(path)
    flat = " ".join(text.split())
    shown = re.findall(r'`/skill (\w+ [^`]*)` starts a workstream told "([^"]+)"', flat)
    assert len(shown) == 1
    for command, said in [*shown, ("review path=app/cli.py focus=naming",
                                   "Review app/cli.py and look hardest at naming.")]:
        words = shlex.split(command)
        assert words[0] == skill.name and skill.render(parse_assignments(words[1:])) == said
