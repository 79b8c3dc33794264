"""The exit codes of `whimbrel run` (docs/headless.md lists them): distinct, so a script can branch."""

from __future__ import annotations

SUCCESS = 0
ERROR = 1  # the model request failed, the store would not open, the workstream is held elsewhere
USAGE = 2  # bad flags, no prompt, malformed config, no model configured
REFUSED = 3  # the run finished, but the policy refused at least one tool call
LIMIT = 4  # --max-turns, --max-budget-usd or --timeout stopped the run
INTERRUPTED = 130  # Ctrl+C or SIGTERM stopped the run; what completed is stored

MEANING = {
    SUCCESS: "success",
    ERROR: "error",
    USAGE: "usage error",
    REFUSED: "refused by policy",
    LIMIT: "limit reached",
    INTERRUPTED: "interrupted",
}
