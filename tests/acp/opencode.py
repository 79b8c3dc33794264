"""opencode (`opencode acp`, from the npm registry) as an external agent, offline against the fake model server.

`npm ci --prefix tests/acp/node` installs it (the README's test command). Everything it keeps lives in a home of
its own under the test's tmp_path; what would reach past this machine is switched off:
- the models.dev catalogue, auto-update and LSP downloads, by their environment variables;
- the `@opencode-ai/plugin` package it otherwise installs from npm into its config directory at every start:
  its installer skips a directory whose node_modules exists and whose package-lock.json already names it.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPENCODE = ROOT / "tests" / "acp" / "node" / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
MISSING = f"opencode is not installed ({OPENCODE}): run `npm ci --prefix tests/acp/node`"
TITLE_PROMPT = "You are a title generator"  # opencode asks its model for a title beside the turn


def is_title_request(body: dict) -> bool:
    """opencode's side request for a session title (answered aside, so it never takes a scripted reply)."""
    messages = body.get("messages") or []
    return bool(messages) and TITLE_PROMPT in str(messages[0].get("content", ""))


def opencode_agent_table(tmp_path: Path, base_url: str) -> str:
    """The `[agents.opencode]` TOML body: `opencode acp` on the fake model, asking before edits and commands."""
    home = tmp_path / "opencode-home"
    config_dir = home / ".config" / "opencode"
    (config_dir / "node_modules").mkdir(parents=True, exist_ok=True)
    (config_dir / "package-lock.json").write_text(json.dumps(
        {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}}}))
    settings = tmp_path / "opencode.json"
    settings.write_text(json.dumps({
        "autoupdate": False, "share": "disabled", "model": "fake/fake-model",
        "permission": {"edit": "ask", "bash": "ask"},
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                              "options": {"baseURL": base_url, "apiKey": "x"},
                              "models": {"fake-model": {"name": "Fake model"}}}}}))
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
           "OPENCODE_CONFIG": str(settings), "OPENCODE_DISABLE_MODELS_FETCH": "1",
           "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_PURE": "1"}
    return (f"command = {json.dumps(str(OPENCODE))}\nargs = [\"acp\"]\n"
            f"env = {{ {', '.join(f'{key} = {json.dumps(value)}' for key, value in env.items())} }}")
