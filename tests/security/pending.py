"""Attacks that still work on main, by case id (every variant) or variant id (`id:on`, `id:off` for root,
`id:on:nobody` for the unprivileged user), with the branch whose defence they wait for. Their tests are
xfail(strict=True): once an attack stops working, its test fails until its line is deleted here, so this
list only ever shrinks. Every branch of the work (shell, gate, sandbox, project) has merged; these are
what their merges left open (see docs/security.md, "Where main stands")."""

SHELL = "shell (still open after its merge)"
GATE = "gate (still open after its merge)"

PENDING: dict[str, str] = {
    # shell (still open after its merge): deny rules behind interpreters and option-driven runners
    "pub-deny-env-s:on": SHELL, "pub-deny-python-c:on": SHELL, "pub-deny-perl-e:on": SHELL,
    "pub-deny-awk-system:on": SHELL, "pub-deny-sed-e:on": SHELL, "pub-deny-glob-name:on": SHELL,
    "pub-allow-find-delete": SHELL, "pub-allow-git-c-alias": SHELL, "pub-allow-git-c-fsmonitor": SHELL,
    "pub-allow-sed-e-cmd": SHELL, "pub-allow-sed-w": SHELL, "pub-allow-tar-to-command": SHELL,
    "pub-allow-tar-checkpoint": SHELL, "pub-allow-awk-begin": SHELL, "pub-allow-awk-redirect": SHELL,
    "pub-allow-vim-c": SHELL, "sv-pub-wrapper:on": SHELL,
    # gate (still open after its merge): reads past a read deny rule, and outside the workspace
    "fr-grep": GATE, "fr-search": GATE, "fo-cat-absolute": GATE, "fo-cat-link": GATE,
}
