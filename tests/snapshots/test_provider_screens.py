"""Snapshots of the setup, model picker and /cost screens (baselines in snapshots/test_provider_screens/),
plus Pilot tests of what they return."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from app.providers.discovery import Candidate
from app.providers.models import ModelInfo
from app.tui.screens.cost import CostScreen
from app.tui.screens.model_picker import ModelPickerScreen
from app.tui.screens.setup import SetupScreen
from app.storage.usage_store import UsageTotal
from tests.snapshots.screen_host import ScreenHost

SIZE = (110, 30)
ENV = {"ANTHROPIC_API_KEY": "sk-ant-x", "GEMINI_API_KEY": "g"}
MODELS = [
    ModelInfo("local", "qwen2.5-coder:14b", "openai", "http://127.0.0.1:8000/v1", 32768, True, "closed"),
    ModelInfo("claude", "claude-sonnet-4-6", "anthropic", None, 200_000, False, "half-open"),
    ModelInfo("gemini", "gemini-2.5-flash", "google", None, 1_048_576, False, "open"),
]
TOTALS = [
    UsageTotal("a" * 32, "Refactor the config loader", 14, 182_400, 9_310, 120_000, 8_000, 0.8123, True, 23, 18),
    UsageTotal("b" * 32, "Fix flaky test", 3, 12_800, 1_020, 0, 0, 0.0, False, 4),
]
PER_TURN = [1200, 3400, 2800, 9100, 15000, 7000, 22000, 18000, 4000, 26000]


async def local_probe() -> list[Candidate]:
    return [Candidate("Ollama on port 11434", "ollama", "openai", "llama3.2:3b",
                      base_url="http://127.0.0.1:11434/v1", models=["llama3.2:3b", "qwen2.5:7b"],
                      source="local")]


def setup_screen(path: Path) -> SetupScreen:
    return SetupScreen(path, env=ENV, probe=local_probe)


async def settle(pilot) -> None:
    await pilot.pause()
    for _ in range(20):
        if not getattr(pilot.app.screen, "probing", False):
            break
        await pilot.pause(0.05)
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause(0.1)


def test_setup_screen(snap_compare) -> None:
    app = ScreenHost(setup_screen(Path("/home/user/.config/whimbrel/config.toml")))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_model_picker(snap_compare) -> None:
    assert snap_compare(ScreenHost(ModelPickerScreen(MODELS, current="claude")), terminal_size=SIZE,
                        run_before=settle)


def test_cost_screen(snap_compare) -> None:
    app = ScreenHost(CostScreen(TOTALS, PER_TURN, current="a" * 32))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


async def test_setup_writes_the_choice_and_keeps_comments(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# my settings\n[tools]\nbash_timeout = 60  # one minute\n")
    app = ScreenHost(setup_screen(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down")  # Anthropic, Gemini, Ollama
        await pilot.press("enter")
        await pilot.pause()
    assert isinstance(app.result, Candidate) and app.result.alias == "ollama"
    text = path.read_text()
    assert "# my settings" in text and "bash_timeout = 60  # one minute" in text
    assert 'default = "ollama"' in text and 'model = "llama3.2:3b"' in text
    from app.settings.config import load_config

    assert load_config(path).models["ollama"].base_url == "http://127.0.0.1:11434/v1"


async def test_model_picker_returns_the_alias() -> None:
    app = ScreenHost(ModelPickerScreen(MODELS, current="local"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.result == "claude"
