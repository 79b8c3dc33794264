"""Only the SDKs the configuration uses are ever imported, and only once asked for:
checked in a fresh interpreter.

An OpenAI-only config with no MCP server starts the real app, lets it idle, types one key, runs one
turn against the fake OpenAI server over a socket, and reports what `sys.modules` holds at each step:
an idle app has no SDK at all (openai is ~22 MB of an idle app's memory); the first key typed in the
prompt starts importing `openai` on a thread, builds its client (the HTTP transport) there, then
imports the reply's Markdown renderer, all before anything is sent (a key typed while boot still runs, once boot knows the models); `anthropic` and `mcp` never.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What an idle app never holds: the SDKs and their HTTP stack and models, tomlkit (a valid config is
# read with the standard library's tomllib), attrs (with rich.pretty, loaded once a sub-agent pane opens).
IDLE_NEVER = {"openai", "anthropic", "mcp", "httpx2", "pydantic", "tomlkit", "attr"}

SCRIPT = textwrap.dedent('''
    import asyncio, json, sys
    from pathlib import Path

    from app.settings.config import load_config
    from app.providers.models import ModelRegistry
    from tests.fake_llm.openai_server import FakeOpenAIServer
    from tests.ui.helpers import booted, make_app, wait_for, wait_for_text

    def tops():
        return sorted({name.split(".")[0] for name in sys.modules})

    async def main(tmp, mode):
        with FakeOpenAIServer() as server:
            config_path = tmp / "config.toml"
            config_path.write_text(
                '[model]\\ndefault = "local"\\n\\n[models.local]\\n'
                f'base_url = "{server.base_url}"\\napi_key = "x"\\nmodel = "fake-model"\\n')
            config = load_config(config_path)
            models = ModelRegistry.from_config(config)
            app = make_app(tmp, settings=models.settings("local"), models=models, config=config)
            if mode == "typed-during-boot":
                await typed_during_boot(app)
            else:
                await idle_then_typed(app)

    async def typed_during_boot(app):
        """A key typed while boot is held back: the SDK loads once boot knows the models, with no Enter."""
        app._boot_started = True
        async with app.run_test() as pilot:
            await pilot.press("h")
            await wait_for(pilot, lambda: getattr(app.focused, "text", "") == "h", message="the key in the boot prompt")
            before_boot = "openai" in sys.modules
            app._boot_started = False
            app.start_boot()
            await booted(pilot)
            await wait_for(pilot, lambda: "openai" in sys.modules, timeout=60,
                           message="a key typed during boot never started the SDK's import")
            print(json.dumps({"before_boot": before_boot}))

    async def idle_then_typed(app):
        async with app.run_test() as pilot:
            await booted(pilot)
            await pilot.pause()
            await wait_for(pilot, lambda: all(w.is_finished for w in app.workers if w.group == "boot"),
                           timeout=60, message="boot never finished")  # booting used to end with the SDK's import
            idle = tops()
            await pilot.press("h")
            await wait_for(pilot, lambda: "openai" in sys.modules, timeout=60,
                           message="the first key typed never started the SDK's import")
            await wait_for(pilot, lambda: "markdown_it" in sys.modules, timeout=60,
                           message="the reply's renderer was not imported after the SDK and its client")
            typed = tops()  # nothing sent yet
            await pilot.press(*"ello")
            await pilot.press("enter")
            await wait_for_text(pilot, "You said: hello", timeout=60)
            print(json.dumps({"idle": idle, "typed": typed, "after_turn": tops()}))

    asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
''')


def run_script(tmp_path, mode: str) -> dict:
    """Run SCRIPT in a fresh interpreter (nothing imported yet) and return what it reported."""
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path), mode], cwd=ROOT, capture_output=True,
                            text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_an_openai_only_config_imports_openai_on_the_first_key_and_never_anthropic_or_mcp(tmp_path):
    loaded = run_script(tmp_path, "idle-then-typed")
    assert "openai" in loaded["after_turn"]  # the turn really went through the OpenAI SDK
    assert not {"anthropic", "mcp"} & set(loaded["after_turn"]), loaded["after_turn"]
    assert not IDLE_NEVER & set(loaded["idle"]), loaded["idle"]
    assert "markdown_it" not in loaded["idle"] and "markdown_it" in loaded["typed"]  # off the first reply's path
    assert "httpcore2" not in loaded["idle"] and "httpcore2" in loaded["typed"]  # the client built before Enter


def test_a_key_typed_during_boot_imports_the_sdk_once_boot_is_done(tmp_path):
    loaded = run_script(tmp_path, "typed-during-boot")
    assert loaded["before_boot"] is False  # the key alone, before boot knew the models, loaded nothing
