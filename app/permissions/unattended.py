"""Rules from the command line of faces where nobody can answer (`whimbrel run`, `whimbrel mcp serve`):
--allow / --deny as rules of scope "cli" (their guard: tools/unattended.py)."""

from __future__ import annotations

from app.permissions.rules import Rule, RuleError


def cli_rules(allow: list[str], deny: list[str]) -> list[Rule]:
    """--allow / --deny as rules; RuleError names the flag and says what is wrong."""
    rules = []
    for decision, specs in (("allow", allow), ("deny", deny)):
        for spec in specs:
            try:
                rules.append(Rule(spec, decision, "cli", f"--{decision} {spec}"))
            except RuleError as error:
                raise RuleError(f"--{decision} {spec!r}: {error}") from None
    return rules
