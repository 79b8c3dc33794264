"""The adversarial corpus: every attack, through `whimbrel run` or `whimbrel mcp serve` for real, in every
variant it names (sandbox on and off, root and `nobody`); the side effect it wanted did not happen."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
from collections import Counter

import pytest

from tests.security.harness import as_user
from tests.security.pending import PENDING
from tests.security.runner import batch_key, explain, verdict
from tests.security.table import ALL, TUI_IDS, pending_branch, variant_id, variants

SANDBOX_OK = shutil.which("bwrap") is not None
PYTHON_TOOLS = {"run_code", "math"}


@functools.lru_cache(maxsize=1)
def jailed_python_for_nobody() -> str:
    """Why this interpreter cannot run inside a jail as uid 65534 here ("" when it can): run_code and math run
    sys.executable in bubblewrap, and a Python under a 0700 home (pyenv in /root) is out of that user's reach."""
    if not SANDBOX_OK:
        return ""
    probe = subprocess.run(as_user(["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", sys.executable, "-c", "pass"],
                                   "nobody"), capture_output=True, text=True, timeout=60)
    if probe.returncode == 0:
        return ""
    return (f"{sys.executable} cannot start inside a jail as uid 65534 here ({probe.stderr.strip()[:120]}): "
            "run_code and math would fail before the attack, so their 'nobody' variants prove nothing")


def batch_group(case, sandbox: str, user: str) -> str:
    """The xdist group of a case's batch: all its cases go to one worker, so the batch runs once per
    suite (a batch split across workers would run on each of them, for the same verdicts)."""
    return "corpus-" + hashlib.sha1(repr(batch_key(case, sandbox, user)).encode()).hexdigest()[:10]


def _params():
    out = []
    for case, sandbox, user in variants(ALL):
        marks = [pytest.mark.xdist_group(batch_group(case, sandbox, user))]
        branch = pending_branch(case, sandbox, user)
        if branch:
            marks.append(pytest.mark.xfail(strict=True, reason=f"defence not merged yet: {branch}"))
        out.append(pytest.param(case, sandbox, user, id=variant_id(case, sandbox, user), marks=marks))
    return out


@pytest.mark.parametrize("case, sandbox, user", _params())
def test_attack_has_no_effect(corpus, listener, case, sandbox, user):
    if user == "nobody" and os.geteuid() != 0:
        pytest.skip("running as another user needs root (setpriv); this suite runs as an ordinary user")
    if sandbox == "on" and not SANDBOX_OK:
        pytest.skip("bubblewrap is not installed here")
    if user == "nobody" and {tool for tool, _ in case.calls} & PYTHON_TOOLS and jailed_python_for_nobody():
        pytest.skip(jailed_python_for_nobody())
    batch = corpus.batch_for(case, sandbox, user)
    wrong = verdict(batch, case, listener)
    assert not wrong, "; ".join(wrong) + "\n" + explain(batch, case)


def test_the_corpus_is_large_unique_and_covers_every_failure():
    ids = [case.id for case in ALL]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    assert len(ALL) >= 150
    failures = {case.failure for case in ALL}
    assert {str(n) for n in range(1, 13)} - {"9"} <= failures  # 9 (plan mode and MCP tools): the TUI tests
    variants_known = {variant_id(*v) for v in variants(ALL)} | set(ids) | set(TUI_IDS)
    assert set(PENDING) <= variants_known, sorted(set(PENDING) - variants_known)
