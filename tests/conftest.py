"""Shared fixtures: the fake LLM server, snapshot baselines kept under snapshots/; and two plugins that
keep the suite honest: no process a test started outlives the session, no test reaches the network."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fake_llm.fixtures import fake_openai, fake_openai_session  # noqa: F401  (re-exported fixtures)
from tests.fake_llm.anthropic_fixtures import fake_anthropic, fake_anthropic_session  # noqa: F401

pytest_plugins = ("tests.process_leaks", "tests.network_guard")

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT_DIR = ROOT / "snapshots"


def _snapshot_dirname(cls, *, test_location) -> str:
    """Keep SVG baselines in snapshots/<test module>/ instead of tests/**/__snapshots__."""
    return str(SNAPSHOT_DIR / Path(test_location.filepath).stem)


try:
    import pytest_textual_snapshot

    pytest_textual_snapshot.SVGImageExtension.dirname = classmethod(_snapshot_dirname)
except ImportError:  # pragma: no cover - the test extra installs it
    pass


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No test reads the developer's real config, data or keys."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("WHIMBREL_DATA_DIR", str(home / "data"))
    # the default config location, empty: a WHIMBREL_CONFIG naming a missing file would be an error
    monkeypatch.delenv("WHIMBREL_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("WHIMBREL_IMAGES", "off")  # the developer's terminal never decides (tests force one)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
