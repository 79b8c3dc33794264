"""watch's stop_on: the conditions people write work; injection attempts are refused, never run."""

from __future__ import annotations

import pytest

from tools.errors import ToolError
from tools.watch_expr import evaluate, parse

POLL = {"output": "build ready\n", "data": {"state": "MERGED", "checks": [1, 2]}, "exit_code": 0,
        "prev_output": "building\n", "changed": True}


@pytest.mark.parametrize("expression, expected", [
    ('data["state"] == "MERGED"', True), ('"error" in output', False), ("exit_code != 0", False),
    ('changed and "ready" in output.lower()', True), ('data.get("mergedAt") is not None', False),
    ("len(data['checks']) >= 2", True), ("output.strip().endswith('ready')", True),
    ("not changed or exit_code == 1", False), ("prev_output != output", True),
    ("data['missing'] == 1", False),  # an error means "not yet", never a crash
    ("int(output) > 3", False),
])
def test_conditions(expression: str, expected: bool) -> None:
    assert evaluate(parse(expression), POLL) is expected


@pytest.mark.parametrize("expression, words", [
    ("__import__('os').system('touch /tmp/pwned')", "not '__import__'"),
    ("output.__class__.__mro__", "attribute '__class__'"),
    ("open('/etc/passwd').read()", "not 'open'"),
    ("eval('1')", "not 'eval'"),
    ("[c for c in output]", "may not use ListComp"),
    ("(lambda: 1)()", "may only call len"),
    ("sorted(output, key=len)", "without keywords"),
    ("output.format(x=1)", "attribute 'format'"),
    ("len(output, key=1)", "without keywords"),
    ("output[::-1]", "not slice"),
    ("2 ** 100000", "may not use Pow"),
    ("(exit_code := 1)", "may not use NamedExpr"),
    ("globals()", "not 'globals'"),
    ("x" * 600, "longer than 500"),
    ("1 +", "not a valid expression"),
])
def test_injection_is_refused_at_parse_time(expression: str, words: str) -> None:
    with pytest.raises(ToolError) as caught:
        parse(expression)
    assert words in str(caught.value)


def test_huge_products_are_refused_while_evaluating() -> None:
    assert evaluate(parse("len(output * 100000000) > 0"), POLL) is False
