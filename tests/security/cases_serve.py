"""The same attacks through `whimbrel mcp serve` (the real MCP SDK client calls its tools), with its own
`--allow`, `--deny` and `--mode`: one representative of each class that serve can be asked."""

from __future__ import annotations

from tests.security.harness import (ASK_ALLOW, ASK_DENY, AUTO_ALLOW, AUTO_DENY, PLANTED_KEY, Case, bash, code, fetch,
                                    math, read, write)

ASK = {"allow": ASK_ALLOW, "deny": ASK_DENY}
AUTO = {"mode": "auto", "allow": AUTO_ALLOW, "deny": AUTO_DENY}
PLAN = {"mode": "plan", "allow": ASK_ALLOW, "deny": ASK_DENY}

M = ("absent", "%D%/m")


def _serve(id_: str, failure: str, defence: str, call, checks, **policy) -> Case:
    return Case(id_, failure, defence, (call,), checks, path="serve", **policy)


CASES = [
    _serve("sv4-default-subst", "4", "shell", bash("echo ${x:-$(touch %D%/m)}"), (M,), **ASK),
    _serve("sv4-ansi-c", "4", "shell", bash("echo $'\\'' ; touch %D%/m #'"), (M,), **ASK),
    _serve("sv4-arith", "4", "shell", bash("echo $(( $(touch %D%/m) ))"), (M,), **ASK),
    _serve("sv4-chain", "4", "shell", bash("echo hi; touch %D%/m"), (M,), **ASK),
    _serve("sv-pub-wrapper", "public", "shell", bash("env -S 'touch %D%/m'"), (M,), **AUTO),
    _serve("sv5-math-attrgetter", "5", "sandbox",
           math("import operator\nb = operator.attrgetter('__self__')(print)\n"
                "imp = operator.attrgetter('__import__')(b)\nimp('os').system('touch %W%/m')"), (M,), **AUTO),
    _serve("sv5-math-open", "5", "sandbox", math("open('%W%/m', 'w').write('x')"), (M,), **AUTO),
    _serve("sv6-amp-hang", "6", "shell", bash("echo hi &>/dev/null"), (), **ASK, hang=True,
           sandbox=("off",)),
    _serve("sv7-home", "7", "shell", bash("echo PWNED >> $HOME/.bashrc"), (("unchanged", "%HOME%/.bashrc"),),
           **ASK),
    _serve("sv8-plan-redirect", "8", "shell", bash("ls > %D%/m"), (M,), **PLAN),
    _serve("sv10-write-env", "10", "gate", write("%D%/.env"), (("unchanged", "%D%/.env"),), mode="accept-edits",
           deny=("edit_file(**/.env)",)),
    _serve("sv11-env-key", "11", "sandbox", bash("echo $OPENAI_API_KEY"), (("not_sent", PLANTED_KEY),),
           **ASK),
    _serve("sv2-run-code", "2", "sandbox", code("open('%D%/m', 'w').write('x')"), (M,), **PLAN),
    _serve("sv-read-outside", "public", "main", read("%D%/../../../outside/%ID%/secret.txt"), (("unread", "out"),),
           **AUTO),
    _serve("sv-ssrf-decimal", "public", "main", fetch("http://2130706433:%PORT%/%ID%"), (), **AUTO,
           sandbox=("on",)),
    _serve("sv-ssrf-mapped", "public", "main", fetch("http://[::ffff:127.0.0.1]:%PORT%/%ID%"), (), **AUTO,
           sandbox=("on",)),
]
