"""Project instructions: AGENTS.md / WHIMBREL.md (CLAUDE.md where a directory has neither).

Loaded, in this order: the workspace root, then each parent up to the repository root (the
nearest directory above with a `.git`; without one, the workspace alone), then the user-level
file in the config dir. A directory inside the workspace adds its own files when the agent
first reads or edits a file there (`Instructions.add_for_paths`). `@path` in a file (outside
code fences) imports another file, relative to the importing file; a loop or a missing file
becomes a note in the list, never an error. Everything is plain file reading: call it off the
UI loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

PRIMARY = ("AGENTS.md", "WHIMBREL.md")
FALLBACK = "CLAUDE.md"
FILE_LIMIT = 64 * 1024  # characters of one file given to the model
IMPORT_DEPTH = 5
_IMPORT = re.compile(r"(?<![\w`])@((?:~|\.{1,2})?/?[\w.\-/]+)")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class InstructionFile:
    """One file given to the model; `via` says why (workspace, parent, user, subdirectory, @import)."""

    path: Path
    via: str
    text: str


@dataclass
class Instructions:
    """What was loaded and the notes (loops, missing imports, unreadable files) met on the way."""

    files: list[InstructionFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seen_dirs: set[Path] = field(default_factory=set)
    # Where imports may reach: the project (repository root, else workspace) and the config dir. A
    # project file importing @~/.aws/credentials must not put a secret into the model's context.
    import_roots: tuple[Path, ...] = ()
    file_limit: int = FILE_LIMIT  # [memory] instruction_kb, in characters
    import_depth: int = IMPORT_DEPTH  # [memory] import_depth

    def paths(self) -> list[Path]:
        return [f.path for f in self.files]

    def render(self) -> str:
        """The part of the system message with the instructions, each under where it came from."""
        if not self.files:
            return ""
        parts = ["# Project instructions",
                 "From the instruction files below (later, more specific files refine earlier ones)."]
        for item in self.files:
            parts.append(f"\n## {item.path} ({item.via})\n{item.text.strip()}")
        return "\n".join(parts)

    def add_for_paths(self, paths: Iterable[Path], workspace: Path) -> list[InstructionFile]:
        """Files of directories inside `workspace` holding `paths`, not loaded yet; returns those added."""
        workspace = workspace.resolve()
        added: list[InstructionFile] = []
        for path in sorted({Path(p).resolve() for p in paths}):
            directory = path.parent
            if directory == workspace or workspace not in directory.parents:
                continue
            chain = [directory, *directory.parents]
            for folder in reversed(chain[:chain.index(workspace)]):
                if folder not in self.seen_dirs:
                    self.seen_dirs.add(folder)
                    added += self._add_dir(folder, "subdirectory")
        return added

    def _add_dir(self, folder: Path, via: str) -> list[InstructionFile]:
        start = len(self.files)
        for path in dir_files(folder):
            self._add_file(path, via, chain=())
        return self.files[start:]

    def _add_file(self, path: Path, via: str, chain: tuple[Path, ...]) -> None:
        path = path.resolve()
        if path in chain:
            loop = " → ".join(str(p) for p in (*chain, path))
            self.notes.append(f"import loop skipped: {loop}")
            return
        if path in self.paths():
            return
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            self.notes.append(f"{path}: could not be read ({error.strerror or error})")
            return
        if len(text) > self.file_limit:
            self.notes.append(f"{path}: cut to its first {self.file_limit:,} characters")
            text = text[:self.file_limit]
        self.files.append(InstructionFile(path, via, text))
        if len(chain) >= self.import_depth:
            if imports(text):
                self.notes.append(f"{path}: imports deeper than {self.import_depth} levels were not followed")
            return
        for ref in imports(text):
            target = Path(ref).expanduser() if ref.startswith("~") else path.parent / ref
            if not target.is_file():
                self.notes.append(f"{path}: @{ref} not found ({target})")
                continue
            if self.import_roots and not _inside(target.resolve(), self.import_roots):
                self.notes.append(f"{path}: @{ref} is outside the project and the config dir: not imported")
                continue
            self._add_file(target, f"@import from {path.name}", (*chain, path))


def _inside(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def imports(text: str) -> list[str]:
    """The `@path` references of a file, outside fenced code blocks, in order."""
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            for ref in _IMPORT.findall(re.sub(r"`[^`]*`", "", line)):
                ref = ref.rstrip(".,;:")
                if ("/" in ref or "." in ref) and ref not in found:  # a path, not an @mention
                    found.append(ref)
    return found


def dir_files(folder: Path) -> list[Path]:
    """AGENTS.md and WHIMBREL.md of `folder`, or its CLAUDE.md when it has neither."""
    primary = [folder / name for name in PRIMARY if (folder / name).is_file()]
    if primary:
        return primary
    fallback = folder / FALLBACK
    return [fallback] if fallback.is_file() else []


def repository_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding `.git`, or None."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def load(workspace: Path, config_dir: Path | None, *, file_limit: int = FILE_LIMIT,
         import_depth: int = IMPORT_DEPTH) -> Instructions:
    """The workspace's instructions: root, parents up to the repository root, then the user's file
    (each cut to `file_limit` characters, @imports followed `import_depth` levels deep)."""
    workspace = Path(workspace).resolve()
    root = repository_root(workspace)
    config = Path(config_dir).expanduser().resolve() if config_dir is not None else None
    result = Instructions(seen_dirs={workspace},
                          import_roots=tuple(p for p in (root or workspace, config) if p is not None),
                          file_limit=file_limit, import_depth=import_depth)
    chain = [workspace]
    if root is not None and root != workspace:
        chain += [p for p in workspace.parents if p == root or root in p.parents]
    for number, folder in enumerate(chain):
        result.seen_dirs.add(folder)
        result._add_dir(folder, "workspace" if number == 0 else "parent")
    if config is not None:
        result._add_dir(config, "user")
    return result


def shown_path(path: Path, workspace: Path) -> str:
    """A path as the user reads it: relative to the workspace when inside or above it, else with ~."""
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        pass
    for ups, parent in enumerate(workspace.parents, start=1):
        if parent != Path(parent.anchor) and parent in path.parents:
            return "../" * ups + path.relative_to(parent).as_posix()
    home = Path.home()
    return "~/" + path.relative_to(home).as_posix() if home in path.parents else str(path)


def describe(loaded: Instructions, workspace: Path) -> str:
    """What /instructions shows: each file in the order given, why it was loaded, and the notes."""
    workspace = Path(workspace).resolve()
    if not loaded.files:
        lines = ["No instruction files were found. Whimbrel reads AGENTS.md and WHIMBREL.md (or CLAUDE.md) "
                 "in the workspace and its parents up to the repository root, and in the config dir; "
                 "/init drafts an AGENTS.md."]
    else:
        lines = ["Instructions given to the model, in this order:"]
        for number, item in enumerate(loaded.files, start=1):
            size = len(item.text.encode("utf-8"))
            lines.append(f"  {number}. {shown_path(item.path, workspace)}  ({item.via}, {size:,} bytes)")
    prefix = str(workspace) + "/"
    lines += [f"  note: {note.replace(prefix, '')}" for note in loaded.notes]  # paths as above: relative
    return "\n".join(lines)
