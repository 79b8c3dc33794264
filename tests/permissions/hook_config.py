"""A config.toml for the faces' permission tests: some [policy] rules and a real PreToolUse hook
script (Claude Code's format) that blocks `rm`."""

from __future__ import annotations

import sys
from pathlib import Path

NO_RM_HOOK = '''import json, sys
event = json.load(sys.stdin)
if event["tool_input"].get("command", "").split()[:1] == ["rm"]:
    print("rm is not allowed here: move files to trash/", file=sys.stderr)
    sys.exit(2)
'''


def config_with_no_rm_hook(tmp_path: Path, policy: str) -> Path:
    """`policy` (the [policy] table's lines) and the no-rm hook, written under tmp_path."""
    hook = tmp_path / "no_rm.py"
    hook.write_text(NO_RM_HOOK)
    config = tmp_path / "config.toml"
    config.write_text(f'[policy]\n{policy}\n\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\n'
                      f'type = "command"\ncommand = "{sys.executable} {hook}"\n')
    return config
