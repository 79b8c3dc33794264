"""math: real calculations in a child process, and escape attempts refused at each layer."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.tools.helpers import run
from tools.context import ToolContext
from tools.math_tool import launch
from tools.registry import ToolRegistry


@pytest.mark.parametrize("code, expected", [
    ("from fractions import Fraction\nsum(Fraction(1, n) for n in range(1, 11))", "Fraction(7381, 2520)"),
    ("import statistics\nstatistics.median([3, 1, 4, 1, 5])", "3"),
    ("import math\nprint(math.comb(52, 5))\nx = 2\nx ** 100", "2598960\n1267650600228229401496703205376"),
    ("total = 0\nfor i in range(10):\n    total += i", "(no output: end with an expression, or print() the result)"),
])
async def test_calculations(registry: ToolRegistry, ctx: ToolContext, code: str, expected: str) -> None:
    text, is_error = await run(registry, ctx, "math", {"code": code})
    assert (text, is_error) == (expected, False)


@pytest.mark.parametrize("code, words", [
    ("import os\nos.system('id')", "importing os is not allowed"),
    ("from subprocess import run", "importing from subprocess is not allowed"),
    ("x = __import__('os')", "the name '__import__' is not available"),
    ("().__class__.__base__.__subclasses__()", "the attribute '__class__' is not available"),
    ("open('/etc/passwd').read()", "the name 'open' is not available"),
    ("getattr(1, '__class__')", "the name 'getattr' is not available"),
    ("eval('1+1')", "the name 'eval' is not available"),
    ("import random\nrandom._os.system('id')", "the attribute '_os' is not available"),
    ("from . import x", "importing from . is not allowed"),
    ("(lambda: 0).__globals__", "the attribute '__globals__' is not available"),
    ("def f():\n    global x", "global and nonlocal are not allowed"),
    ("import builtins", "importing builtins is not allowed"),
    ("1 +", "syntax error"),
])
async def test_escapes_are_refused_before_anything_runs(registry, ctx, code, words) -> None:
    text, is_error = await run(registry, ctx, "math", {"code": code})
    assert is_error and words in text, text


def run_unchecked(code: str) -> subprocess.CompletedProcess:
    """The runner alone, without the AST check: the second layer must hold by itself."""
    started = launch(60)
    try:
        return subprocess.run(started.argv, input=code, capture_output=True, text=True, timeout=60, cwd="/",
                              **started.kwargs())
    finally:
        started.started()


@pytest.mark.parametrize("code, words", [
    ("import os", "math may not import os"),
    ("import random\nrandom._os.system('echo PWNED')", "math may not do that (os.system)"),
    ("import random\nrandom._os.fork()", "math may not do that (os.fork)"),
    ("import random\nrandom._os.open('/etc/hostname', 0)", "math may not open files (/etc/hostname)"),
    ("import random\nrandom._os.listdir('/')", "math may not list folders (/)"),
    ("open('/etc/hostname')", "NameError"),
    ("().__class__.__base__.__subclasses__()", ""),  # reachable, but nothing found there can open or spawn
])
def test_the_runner_holds_without_the_static_check(code: str, words: str) -> None:
    result = run_unchecked(code)
    if words:
        assert result.returncode != 0 and words in result.stderr, result.stderr
    assert "PWNED" not in result.stdout


def test_the_runner_cannot_write_into_the_workspace(workspace: Path) -> None:
    target = workspace / "escaped.txt"
    result = run_unchecked(f"import random\nrandom._os.open({str(target)!r}, 65)")
    assert result.returncode != 0 and not target.exists()


async def test_an_endless_loop_stops_at_the_timeout(registry, ctx) -> None:
    text, is_error = await run(registry, ctx, "math", {"code": "while True:\n    pass", "timeout": 1})
    assert is_error and "stopped after 1 s" in text


async def test_a_memory_bomb_stops_at_the_memory_limit(registry, ctx) -> None:
    text, is_error = await run(registry, ctx, "math", {"code": "x = [0] * (10 ** 10)"})
    assert is_error and "ran out of memory" in text


async def test_runtime_errors_are_words(registry, ctx) -> None:
    text, is_error = await run(registry, ctx, "math", {"code": "print('before')\n1 / 0"})
    assert is_error and "ZeroDivisionError: division by zero" in text and "before" in text
