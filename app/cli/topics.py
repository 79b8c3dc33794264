"""`whimbrel help [TOPIC]`: short texts on rules, keys and config, cut from the documents that hold the
full text (README.md, docs/keys.md) so there is one source; when Whimbrel runs from an install without
its documents, the text says where they are and what to run instead."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the source tree: README.md and docs/ sit beside app/
# topic: (what it is, file, heading of the section, what to run for one's own settings)
TOPICS = {
    "rules": ("permission rules, modes and the sandbox", "README.md", "## Permissions",
              "`whimbrel policy list` shows your rules; `whimbrel policy check 'bash(git push)'` what "
              "would happen to a call, and why."),
    "keys": ("key bindings and [keymap]", "docs/keys.md", "# Keys and keymaps",
             "In the window, F1 (/help) shows the keys in force; /settings edits [keymap]."),
    "config": ("config.toml: models, MCP servers, tools", "README.md", "## Models and MCP servers",
               "{config}"),
}
_TABLE = re.compile(r"^\s*(?:#\s*)?\[\[?([a-z_][a-z_.*]*)\]\]?")


def topics_text() -> str:
    width = max(map(len, TOPICS))
    rows = [f"  {name:<{width}}  {about}" for name, (about, *_rest) in TOPICS.items()]
    return ("Help topics (`whimbrel help TOPIC`):\n" + "\n".join(rows)
            + "\n\n`whimbrel help COMMAND` (or `whimbrel COMMAND --help`) explains a subcommand.")


def section(text: str, heading: str) -> list[str]:
    """The lines under the first heading that starts with `heading`, to the next heading of its level or
    above (a `#` line inside a code block is not a heading)."""
    level = len(heading) - len(heading.lstrip("#"))
    lines, out, inside, fenced = text.splitlines(), [], False, False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        is_heading = not fenced and re.match(r"#+ ", line)
        if inside and is_heading and len(line) - len(line.lstrip("#")) <= level:
            break
        if not inside and is_heading and line.startswith(heading):
            inside = True
        if inside:
            out.append(line)
    return out


def lead(lines: list[str]) -> list[str]:
    """A section's opening: its heading, paragraphs and the first code block, up to the first list or
    second block — the short text; the rest stays in the document."""
    out, fenced, blocks = [], False, 0
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
            blocks += not fenced
        elif not fenced and (line.startswith(("- ", "| ")) or (line.startswith("#") and out)):
            break
        out.append(line)
        if blocks and not fenced:
            break
    return out


def _tables(lines: list[str]) -> list[str]:
    """The config tables a section's examples show, in order, once each."""
    seen: dict[str, None] = {}
    for line in lines:
        match = _TABLE.match(line)
        if match:
            seen.setdefault(match.group(1), None)
    return list(seen)


def topic_text(name: str) -> str:
    about, file, heading, then = TOPICS[name]
    path = ROOT / file
    if name == "config":
        from app.settings.paths import chosen_config_path

        config_path, _named_by = chosen_config_path(None)
        then = (f"Your config file: {config_path} (another: --config FILE or $WHIMBREL_CONFIG). "
                "Environment: OPENAI_API_KEY, OPENAI_BASE_URL, WHIMBREL_DATA_DIR, WHIMBREL_CONFIG.")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return f"{name}: {about}.\nThe full text is {file} in Whimbrel's source (not installed here).\n{then}"
    lines = section(text, heading)
    if name == "config":
        tables = _tables(text.splitlines())
        body = lead(lines)[:12]
        if sum(line.startswith("```") for line in body) % 2:  # cut inside the example: close it
            body += ["# …", "```"]
        body += ["", "Tables the README's examples use: " + ", ".join(f"[{t}]" for t in tables)]
    else:
        body = lead(lines)
    return "\n".join([*body, "", then, f"More: {path} ({lines[0].lstrip('# ') if lines else heading})."])
