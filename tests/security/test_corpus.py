"""The adversarial corpus: every attack, through `whimbrel run` or `whimbrel mcp serve` for real, in every
variant it names (sandbox on and off, root and `nobody`); the side effect it wanted did not happen."""

from __future__ import annotations

import os
import shutil
from collections import Counter

import pytest

from tests.security.pending import PENDING
from tests.security.runner import explain, verdict
from tests.security.table import ALL, pending_branch, variant_id, variants

SANDBOX_OK = shutil.which("bwrap") is not None


def _params():
    out = []
    for case, sandbox, user in variants(ALL):
        marks = []
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
    batch = corpus.batch_for(case, sandbox, user)
    wrong = verdict(batch, case, listener)
    assert not wrong, "; ".join(wrong) + "\n" + explain(batch, case)


def test_the_corpus_is_large_unique_and_covers_every_failure():
    ids = [case.id for case in ALL]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    assert len(ALL) >= 150
    failures = {case.failure for case in ALL}
    assert {str(n) for n in range(1, 13)} - {"9"} <= failures  # 9 (plan mode and MCP tools): the TUI tests
    assert all(key.split(":")[0] in set(ids) | {"t1", "t9"} or key.startswith(("t1-", "t9-")) for key in PENDING)
