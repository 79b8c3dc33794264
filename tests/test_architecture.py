"""Rules of the road that the code layout must keep: checked by importing in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("openai", "anthropic", "mcp", "sqlalchemy", "alembic", "psycopg", "jsonschema", "markdown_it", "tree_sitter_bash")


def loaded_after(imports: str) -> set[str]:
    code = f"import sys, json\n{imports}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_startup_path_does_not_import_heavy_sdks():
    loaded = loaded_after("import app.cli, app.tui.app, app.tui.screens.main, widgets.pane_area")
    assert not loaded & set(HEAVY), f"imported on the startup path: {sorted(loaded & set(HEAVY))}"


def test_engine_and_backends_never_import_textual():
    loaded = loaded_after(
        "import app.engine.session, app.engine.workstream, app.providers.openai_chat, app.providers.retry, "
        "app.storage.async_store, app.storage.store, app.settings.config, tools.pipeline, tools.registry")
    assert "textual" not in loaded


def test_no_source_file_in_engine_mentions_textual():
    for folder in ("app/engine", "app/providers", "app/storage", "tools"):
        for path in (ROOT / folder).rglob("*.py"):
            assert "import textual" not in path.read_text() and "from textual" not in path.read_text(), path


# ---- The rooms and their arrows (docs/architecture.md draws them) --------------------------------
# Each room lists the rooms it may import besides itself. Anything not listed is forbidden, Textual
# included. A module under app/, tools/ or widgets/ that belongs to no room fails the test, so a new
# room gets its place (and its arrows) here before it lands. Every room is one folder.
SETTINGS = {"app.settings"}
LOWER = {"app.vocabulary", "app.storage", "app.sandbox", "app.permissions", "app.providers", "tools",
         "app.memory", "app.checkpoints", "app.mcp"}
SHARED = {"app.runtime", "app.mentions", "app.transfer"}  # what every face shares, besides settings
ROOMS: dict[str, set[str]] = {
    "app.vocabulary": set(),
    # Settings are read by every room; they hold parsed values only and import no room above them
    # (the provider names a config accepts are declared there; app/providers/registry.py reads them).
    "app.settings": {"app.vocabulary"},
    "app.storage": {"app.vocabulary"},
    "app.sandbox": {"app.vocabulary"},
    "app.permissions": {"app.vocabulary", "app.storage", "app.sandbox"} | SETTINGS,
    "app.providers": {"app.vocabulary"} | SETTINGS,
    "app.checkpoints": {"app.vocabulary", "app.storage", "app.sandbox"} | SETTINGS,  # sandbox: safe git
    "app.memory": {"app.vocabulary", "app.storage"} | SETTINGS,
    "tools": {"app.vocabulary", "app.sandbox", "app.permissions", "app.checkpoints", "app.memory"},
    # app.storage: `whimbrel mcp serve` keeps its audit rows in the store
    "app.mcp": {"app.vocabulary", "tools", "app.permissions", "app.providers", "app.storage"} | SETTINGS,
    "app.engine": LOWER | SETTINGS,
    "app.headless": {"app.engine"} | LOWER | SETTINGS,
    "app.acp": {"app.engine", "app.headless"} | LOWER | SETTINGS,  # ACP shares the headless policy
    "app.runtime": {"tools", "app.storage", "app.vocabulary"} | SETTINGS,  # the error log: a tool's error in words, private files, redaction
    "app.mentions": {"app.vocabulary", "app.providers", "app.mcp", "app.sandbox"} | SETTINGS,  # git made safe
    "app.transfer": {"app.engine"} | LOWER | SETTINGS,
    "styles": set(),
    # Widgets: Textual, and everything below the window (never the window's glue or screens).
    "widgets": {"textual", "styles", "app.engine"} | LOWER | SETTINGS | SHARED,
    # The window: its App, screens and glue may use every room but the command line.
    "app.tui": {"textual", "widgets", "styles", "app.engine", "app.headless", "app.acp"} | LOWER | SETTINGS | SHARED,
    # The browser face: textual-serve and aiohttp only; each tab runs the window as a process (`python -m app.cli`).
    "app.serve": set(),
    # The command line starts every face.
    "app.cli": {"*"},
}
OUR_PACKAGES = ("app", "tools", "widgets", "styles")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room_of(module: str) -> str | None:
    """The longest room name that is `module` or a package above it."""
    best = None
    for room in ROOMS:
        if (module == room or module.startswith(room + ".")) and (best is None or len(room) > len(best)):
            best = room
    return best


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every absolute import in a file, at any depth (function bodies and TYPE_CHECKING blocks too)."""
    import ast

    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            # `from app import config` imports the module app.settings.config
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names
                         if node.module in OUR_PACKAGES)
    return found


def _source_files() -> list[Path]:
    return [p for package in OUR_PACKAGES for p in (ROOT / package).rglob("*.py")]


def test_every_module_belongs_to_a_room():
    homeless = [_module_name(p) for p in _source_files()
                if _module_name(p) not in OUR_PACKAGES and room_of(_module_name(p)) is None]
    assert not homeless, f"give these a room in tests/test_architecture.py and docs/architecture.md: {homeless}"


def test_imports_follow_the_arrows():
    wrong: list[str] = []
    for path in _source_files():
        room = room_of(_module_name(path))
        if room is None or "*" in ROOMS[room]:
            continue
        for line, target in imported_modules(path):
            top = target.split(".")[0]
            if top not in OUR_PACKAGES + ("textual",) or target in OUR_PACKAGES:
                continue
            target_room = room_of(target) or ("textual" if top == "textual" else target)
            if target_room != room and target_room not in ROOMS[room]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} ({room}) imports {target} ({target_room})")
    assert not wrong, "imports against the arrows:\n" + "\n".join(wrong)


def test_the_arrow_check_catches_a_wrong_import(tmp_path):
    """The checker itself: an engine import from storage and a Textual import from tools are found."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from app.engine.session import Session\n    import textual.app\n")
    targets = [t for _line, t in imported_modules(bad)]
    assert room_of(targets[0]) == "app.engine" and room_of(targets[0]) not in ROOMS["app.storage"]
    assert targets[1].split(".")[0] == "textual" and "textual" not in ROOMS["tools"]


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Each of our modules and the modules of ours it imports (at any depth, TYPE_CHECKING included);
    an import of a name inside a module (`from app.engine import events`) counts as the module."""
    files = [p for package in OUR_PACKAGES for p in (root / package).rglob("*.py")]
    names = {_module_name(p) if root == ROOT else ".".join(p.relative_to(root).with_suffix("").parts): p
             for p in files}
    names = {name.removesuffix(".__init__"): path for name, path in names.items()}

    def resolved(target: str) -> str | None:
        while target and target not in names:
            target = target.rpartition(".")[0]
        return target if target and target not in OUR_PACKAGES else None

    return {name: {t for target in _imported_names(path) if (t := resolved(target)) and t != name}
            for name, path in names.items()}


def _imported_names(path: Path) -> set[str]:
    """What a file imports, with each `from package import name` also read as the module package.name."""
    import ast

    found = {target for _line, target in imported_modules(path)}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of a graph: one path around each strongly connected group of nodes."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(graph):  # Tarjan's algorithm, iterative
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(_path_around(graph, set(group)))
    return found


def _path_around(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A path from the group's first member back to it through the group (breadth first: the shortest)."""
    start = min(group)
    trails = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                return trails[node] + [start]
            if nxt in group and nxt not in trails:
                trails[nxt] = trails[node] + [nxt]
                queue.append(nxt)
    return sorted(group)


def test_no_file_imports_its_way_back_to_itself():
    """No circle of imports among our files (deferred and TYPE_CHECKING imports count)."""
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_no_room_imports_its_way_back_to_itself():
    """Rooms import one another in one direction only: no circle between rooms either."""
    rooms: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        room = room_of(module)
        if room is not None:
            rooms.setdefault(room, set()).update(r for t in targets if (r := room_of(t)) not in (None, room))
    found = circles(rooms)
    assert not found, "circles between rooms:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_circle_check_catches_a_circle(tmp_path):
    """The checker itself: a file-level circle through a deferred import is found and named."""
    (tmp_path / "app" / "room").mkdir(parents=True)
    (tmp_path / "app" / "room" / "a.py").write_text("from app.room.b import thing\n")
    (tmp_path / "app" / "room" / "b.py").write_text("def thing():\n    from app.room import a\n")
    (tmp_path / "app" / "room" / "c.py").write_text("import app.room.a\n")
    assert circles(import_graph(tmp_path)) == [["app.room.a", "app.room.b", "app.room.a"]]


def test_the_top_of_app_holds_packages_only():
    """app/ holds rooms (packages) and its __init__.py, no loose feature files."""
    loose = [p.name for p in (ROOT / "app").iterdir()
             if p.name != "__init__.py" and not p.name.startswith((".", "__pycache__")) and not p.is_dir()]
    assert not loose, f"put these in a room (a package under app/): {loose}"


# ---- Textual's private API lives in one module (widgets/textual_internals.py) --------------------
def private_uses(source: str, names: dict[str, str]) -> list[tuple[int, str]]:
    """(line number, line) of each line of `source` naming one of the private attributes in `names`."""
    import re

    attributes = sorted({name.split(".")[1] for name in names})
    pattern = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, attributes)) + r")(?![\w])")
    return [(number, line.strip()) for number, line in enumerate(source.splitlines(), start=1)
            if pattern.search(line)]


def test_only_textual_internals_uses_textuals_private_api():
    from widgets.textual_internals import PRIVATE_NAMES

    home = ROOT / "widgets" / "textual_internals.py"
    found = [f"{path.relative_to(ROOT)}:{number}: {line}" for path in _source_files() if path != home
             for number, line in private_uses(path.read_text(), PRIVATE_NAMES)]
    assert not found, ("Textual's private API outside widgets/textual_internals.py (wrap it there, list it in "
                       "PRIVATE_NAMES and pin it in tests/ui/test_textual_internals.py):\n" + "\n".join(found))


def test_the_private_api_check_catches_a_use():
    source = "def paint(screen):\n    screen._layout_required = True\n    return screen._layout_required_soon\n"
    assert private_uses(source, {"Screen._layout_required": "the paint"}) == [
        (2, "screen._layout_required = True")]


# ---- textual-serve's private API lives in one module (app/serve/textual_serve_internals.py) ----------
def test_only_textual_serve_internals_uses_textual_serves_private_api():
    """Its private names (`_task`, `_process`, …) are common words, so only modules that import
    textual_serve are searched; the one module that may name them is pinned by tests/serve."""
    import ast

    home = ROOT / "app" / "serve" / "textual_serve_internals.py"
    names = ast.literal_eval(home.read_text().split("PRIVATE_NAMES = ", 1)[1].split("\n}\n", 1)[0] + "\n}")
    users = [path for path in _source_files() if path != home
             and any(name.split(".")[0] == "textual_serve" for _, name in imported_modules(path))]
    found = [f"{path.relative_to(ROOT)}:{number}: {line}" for path in users
             for number, line in private_uses(path.read_text(), names)]
    assert not found, ("textual-serve's private API outside app/serve/textual_serve_internals.py:\n" + "\n".join(found))
