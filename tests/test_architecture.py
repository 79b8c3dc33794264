"""Rules of the road that the code layout must keep: checked by importing in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("openai", "anthropic", "mcp", "sqlalchemy", "jsonschema", "markdown_it")


def loaded_after(imports: str) -> set[str]:
    code = f"import sys, json\n{imports}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_startup_path_does_not_import_heavy_sdks():
    loaded = loaded_after("import app.cli, app.main, app.screens.main, widgets.pane_area")
    assert not loaded & set(HEAVY), f"imported on the startup path: {sorted(loaded & set(HEAVY))}"


def test_engine_and_backends_never_import_textual():
    loaded = loaded_after(
        "import app.engine.session, app.engine.workstream, app.providers.openai_chat, app.providers.retry, "
        "app.storage.async_store, app.storage.store, app.config, tools.pipeline, tools.registry")
    assert "textual" not in loaded


def test_no_source_file_in_engine_mentions_textual():
    for folder in ("app/engine", "app/providers", "app/storage", "tools"):
        for path in (ROOT / folder).rglob("*.py"):
            assert "import textual" not in path.read_text() and "from textual" not in path.read_text(), path
