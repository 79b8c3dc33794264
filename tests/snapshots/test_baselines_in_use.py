"""Every SVG baseline under snapshots/ belongs to a snapshot test that still exists.

syrupy fails a serial run on a baseline no test used, but it cannot tell under pytest-xdist (each
worker sees only its share of the tests), and the README's test command runs in workers: this test
keeps a renamed or deleted snapshot test from leaving its old baseline behind.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_every_baseline_has_its_test():
    modules = {path.stem: path for path in (ROOT / "tests").rglob("test_*.py")}
    orphans = []
    for svg in sorted((ROOT / "snapshots").glob("*/*.svg")):
        module = modules.get(svg.parent.name)
        name = re.escape(svg.stem.split("[")[0].split(".")[0])
        if module is None or not re.search(rf"^\s*(async )?def {name}\(", module.read_text(), re.MULTILINE):
            orphans.append(str(svg.relative_to(ROOT)))
    assert not orphans, f"baselines without a test (delete them or restore the test): {orphans}"
