"""Running `whimbrel run` as a real subprocess against the fake model servers, and reading its output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "headless-events.schema.json").read_text())
RUN_DEADLINE = 120  # seconds: generous for a loaded 2-core machine; a hang fails instead of blocking


def model_flags(base_url: str) -> list[str]:
    return ["--model", "fake-model", "--base-url", base_url, "--api-key", "x"]


def run_whimbrel(workspace: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`whimbrel run ARGS` in `workspace` (the data dir comes from $WHIMBREL_DATA_DIR, set per test)."""
    return subprocess.run([sys.executable, "-m", "app.cli", "run", *args], cwd=workspace, input=stdin,
                          capture_output=True, text=True, timeout=RUN_DEADLINE,
                          stdin=subprocess.DEVNULL if stdin is None else None)


def events(stdout: str) -> list[dict[str, Any]]:
    """The stream-json lines, each checked against the documented schema."""
    import jsonschema

    parsed = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    for event in parsed:
        jsonschema.validate(event, SCHEMA)
    return parsed


def normalized(parsed: list[dict[str, Any]], workspace: Path) -> list[dict[str, Any]]:
    """Events with what differs between runs (ids, paths, token counts) replaced by placeholders."""
    out = []
    for event in parsed:
        event = dict(event)
        for key in ("workstream_id",):
            if key in event:
                event[key] = "<id>"
        if "workdir" in event:
            event["workdir"] = "<workspace>"
        for key in ("prompt_tokens", "completion_tokens"):
            if key in event:
                event[key] = "<n>"
        if isinstance(event.get("usage"), dict):
            event["usage"] = {k: ("<n>" if k != "model_requests" else v) for k, v in event["usage"].items()}
        for key in ("output", "reason", "text"):
            if isinstance(event.get(key), str):
                event[key] = event[key].replace(str(workspace), "<workspace>")
        out.append(event)
    return out
