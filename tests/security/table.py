"""The whole corpus as one table, and the variants each case runs in (sandbox level, user)."""

from __future__ import annotations

from tests.security import cases_code, cases_files, cases_serve, cases_shell
from tests.security.harness import Case
from tests.security.pending import PENDING

ALL: list[Case] = cases_shell.CASES + cases_files.CASES + cases_code.CASES + cases_serve.CASES
# The TUI's cases (test_tui_startup.py): a hostile project `.mcp.json` at start-up, an MCP tool in plan mode.
TUI_IDS = ("t1-command", "t1-sh", "t1-args-key", "t1-env-key", "t1-url-key", "t1-header-key", "t1-cwd-escape",
           "t9-plan-mcp-allowed")


def variants(cases: list[Case]) -> list[tuple[Case, str, str]]:
    """(case, sandbox, user) for every variant a case runs in; `nobody` only where the case says so."""
    return [(case, sandbox, user) for case in cases for sandbox in case.sandbox for user in case.users]


def variant_id(case: Case, sandbox: str, user: str) -> str:
    return f"{case.id}:{sandbox}" + (f":{user}" if user != "root" else "")


def pending_branch(case: Case, sandbox: str, user: str) -> str | None:
    """The branch a variant waits for, or None when its defence is on main."""
    for key in (variant_id(case, sandbox, user), case.id):
        if key in PENDING:
            return PENDING[key]
    return None
