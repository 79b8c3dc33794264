"""Skills: named, reusable system prompts with {{variables}} and session settings.

A skill is a TOML file (`prompt`, `description`, `[settings]`, `[variables]` defaults) or a
Markdown file whose body is the prompt, with an optional front matter between `---` lines
(`key: value`; `default.NAME: value` gives a variable's default). They live in
`<config dir>/skills/` and in the workspace's `.whimbrel/skills/`; a workspace skill replaces a
user skill of the same name. A skill's version is the hash of its file's content, so the
workstream it starts records exactly which text started it.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SETTINGS = ("model", "temperature", "permission_mode", "token_budget")
PERMISSION_MODES = ("ask", "accept-edits", "plan", "auto")
_VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][\w-]*)\s*\}\}")
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*\Z")


class SkillError(ValueError):
    """A skill that cannot be loaded or filled in, explained for the user or the model."""


@dataclass(frozen=True)
class Skill:
    """One skill file, parsed. `version` is the first 12 hex digits of its content's SHA-256."""

    name: str
    description: str
    prompt: str
    path: Path
    version: str
    settings: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, str] = field(default_factory=dict)

    @property
    def variables(self) -> list[str]:
        """The {{variables}} of the prompt, in order of first use."""
        return list(dict.fromkeys(_VARIABLE.findall(self.prompt)))

    def render(self, values: dict[str, str]) -> str:
        """The prompt with every {{variable}} filled in from `values`, else its default."""
        unknown = sorted(set(values) - set(self.variables))
        if unknown:
            raise SkillError(f"skill {self.name} has no variable {', '.join(unknown)}; "
                             f"its variables: {', '.join(self.variables) or 'none'}")
        given = {**self.defaults, **values}
        missing = [v for v in self.variables if v not in given]
        if missing:
            raise SkillError(f"skill {self.name} needs a value for {', '.join(missing)}: "
                             f"/skill {self.name} " + " ".join(f"{v}=…" for v in missing))
        return _VARIABLE.sub(lambda m: given[m.group(1)], self.prompt)


def version_of(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()[:12]


def _check_settings(settings: dict[str, Any], where: Path) -> dict[str, Any]:
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise SkillError(f"{where}: unknown setting {', '.join(unknown)} (known: {', '.join(SETTINGS)})")
    if "temperature" in settings:
        try:
            settings["temperature"] = float(settings["temperature"])
        except (TypeError, ValueError):
            raise SkillError(f"{where}: temperature must be a number") from None
    if "token_budget" in settings:
        try:
            settings["token_budget"] = int(settings["token_budget"])
        except (TypeError, ValueError):
            raise SkillError(f"{where}: token_budget must be a whole number") from None
    if "permission_mode" in settings and settings["permission_mode"] not in PERMISSION_MODES:
        raise SkillError(f"{where}: permission_mode must be one of {', '.join(PERMISSION_MODES)}")
    return settings


def _from_toml(path: Path, text: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SkillError(f"{path}: not valid TOML ({error})") from None
    if not isinstance(data.get("prompt"), str) or not data["prompt"].strip():
        raise SkillError(f"{path}: a TOML skill needs prompt = \"\"\"…\"\"\"")
    return {"name": data.get("name"), "description": data.get("description", ""), "prompt": data["prompt"],
            "settings": dict(data.get("settings", {})), "defaults": {k: str(v) for k, v in
                                                                     data.get("variables", {}).items()}}


def _from_markdown(path: Path, text: str) -> dict[str, Any]:
    meta: dict[str, str] = {}
    body = text
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---"), None)
        if end is None:
            raise SkillError(f"{path}: the front matter opened with --- is never closed")
        for line in lines[1:end]:
            if line.strip() and not line.lstrip().startswith("#"):
                key, sep, value = line.partition(":")
                if not sep:
                    raise SkillError(f"{path}: front matter line {line.strip()!r} is not key: value")
                meta[key.strip()] = value.strip().strip('"')
        body = "\n".join(lines[end + 1:])
    defaults = {k.split(".", 1)[1]: v for k, v in meta.items() if k.startswith("default.")}
    settings = {k: v for k, v in meta.items() if k in SETTINGS or (k not in ("name", "description")
                                                                   and not k.startswith("default."))}
    if not body.strip():
        raise SkillError(f"{path}: the skill's prompt (the Markdown body) is empty")
    return {"name": meta.get("name"), "description": meta.get("description", ""), "prompt": body.strip() + "\n",
            "settings": settings, "defaults": defaults}


def load_skill(path: Path) -> Skill:
    """Parse one skill file; SkillError in words when it is malformed."""
    content = path.read_bytes()
    text = content.decode("utf-8", errors="replace")
    parsed = _from_toml(path, text) if path.suffix == ".toml" else _from_markdown(path, text)
    name = (parsed["name"] or path.stem).strip()
    if not _NAME.match(name):
        raise SkillError(f"{path}: skill name {name!r} may use letters, digits, '.', '_' and '-' only")
    return Skill(name=name, description=" ".join(str(parsed["description"]).split()), prompt=parsed["prompt"],
                 path=path, version=version_of(content), settings=_check_settings(parsed["settings"], path),
                 defaults=parsed["defaults"])


def skill_dirs(workspace: Path, config_dir: Path | None) -> list[Path]:
    """Where skills live, lowest precedence first."""
    dirs = [Path(config_dir).expanduser() / "skills"] if config_dir is not None else []
    return dirs + [Path(workspace) / ".whimbrel" / "skills"]


def discover(workspace: Path, config_dir: Path | None) -> tuple[dict[str, Skill], list[str]]:
    """Every skill by name (the workspace's win), and the problems of files that could not load."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    for folder in skill_dirs(workspace, config_dir):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix not in (".toml", ".md") or not path.is_file():
                continue
            try:
                skill = load_skill(path)
            except (SkillError, OSError) as error:
                problems.append(str(error))
                continue
            found[skill.name] = skill
    return dict(sorted(found.items())), problems


def parse_assignments(words: list[str]) -> dict[str, str]:
    """`var=value` words (quotes already removed by shlex) as a dict; SkillError for anything else."""
    values: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise SkillError(f"{word!r} is not var=value")
        values[key] = value
    return values
