"""Cases whose defence has not reached main yet, by case id (every variant) or variant id (`id:on`, `id:off` for
root, `id:on:nobody` for the unprivileged user),
with the branch that brings it. Their tests are xfail(strict=True): once a branch lands and a case holds, its
test fails until its id is deleted here, so this list only ever shrinks. (A case may be fixed by another
branch than the one named: redirects as writes come with both `shell` and `gate`.)"""

PENDING: dict[str, str] = {
    # shell (still open after its merge)
    "pub-deny-env-s:on": "shell (still open after its merge)",
    "pub-deny-python-c:on": "shell (still open after its merge)",
    "pub-deny-perl-e:on": "shell (still open after its merge)",
    "pub-deny-awk-system:on": "shell (still open after its merge)",
    "pub-deny-sed-e:on": "shell (still open after its merge)",
    "pub-deny-variable:on": "shell (still open after its merge)",
    "pub-deny-subst-name:on": "shell (still open after its merge)",
    "pub-deny-glob-name:on": "shell (still open after its merge)",
    "pub-allow-find-delete": "shell (still open after its merge)",
    "pub-allow-git-c-alias": "shell (still open after its merge)",
    "pub-allow-git-c-fsmonitor": "shell (still open after its merge)",
    "pub-allow-sed-e-cmd": "shell (still open after its merge)",
    "pub-allow-sed-w": "shell (still open after its merge)",
    "pub-allow-tar-to-command": "shell (still open after its merge)",
    "pub-allow-tar-checkpoint": "shell (still open after its merge)",
    "pub-allow-awk-begin": "shell (still open after its merge)",
    "pub-allow-awk-redirect": "shell (still open after its merge)",
    "pub-allow-vim-c": "shell (still open after its merge)",
    "sv-pub-wrapper:on": "shell (still open after its merge)",
    # gate
    "s7-home-bashrc:off": "gate", "s7-tilde-plus:off": "gate", "s7-pwd-dotdot:off": "gate",
    "s7-braced-home:off": "gate", "s7-oldpwd:off": "gate", "s8-ls-new-file": "gate", "s8-echo-env": "gate",
    "s8-echo-append-env": "gate", "s8-clobber": "gate", "s8-input-output": "gate", "s8-plan-ls-new-file": "gate",
    "s8-plan-echo-env": "gate", "s8-plan-echo-append-env": "gate", "s8-plan-clobber": "gate", "sv7-home:off": "gate",
    "sv8-plan-redirect": "gate", "f10-write-file": "gate", "f10-write-dotslash": "gate", "f10-write-dotdot": "gate",
    "f10-write-absolute": "gate", "f10-write-symlink": "gate", "f10-write-hardlink": "gate", "f10-bash-echo": "gate",
    "f10-bash-tee": "gate", "f10-bash-cp": "gate", "f10-bash-cp-stdin": "gate", "f10-bash-sed-i": "gate",
    "f10-bash-dd": "gate", "f10-bash-mv": "gate", "f10-bash-truncate": "gate", "f10-bash-printf-hard": "gate",
    "f10-risk-env": "gate", "f10-risk-env-local": "gate", "f10-risk-hardlink": "gate", "f10-risk-symlink": "gate",
    "fr-cat": "gate", "fr-brace-group": "gate", "fr-glob": "gate", "fr-glob-qmark": "gate",
    "fr-brace-expansion": "gate", "fr-dotdot": "gate", "fr-input-redirect": "gate", "fr-double-dash": "gate",
    "fr-absolute": "gate", "fr-double-slash": "gate", "fr-symlink": "gate", "fr-hardlink": "gate", "fr-grep": "gate",
    "fr-read-hardlink": "gate", "fr-search": "gate", "fo-cat-absolute": "gate", "fo-cat-link": "gate",
    "fo-cat-home:off": "gate", "sv10-write-env": "gate", "t9-plan-mcp-allowed": "gate", "s8-brace-redirect": "gate",
    "s8-plan-brace-redirect": "gate",
}
