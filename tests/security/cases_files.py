"""Attacks on paths and places: files that make Whimbrel run commands planted by a writing tool (failure 1),
path rules that cover one tool only (10), reads past a deny rule through bash, links and `..` (published
bypasses), writes outside the workspace, `web_fetch` to this machine, and secrets in what is kept (11)."""

from __future__ import annotations

from tests.security.harness import (ASK_ALLOW, ASK_DENY, AUTO_ALLOW, AUTO_DENY, PLANTED_AWS, PLANTED_KEY, Case, bash,
                                    edit, fetch, read, write)

ENV = ("unchanged", "%D%/.env")
UNREAD_ENV = ("unread", "env")
LINKS = ("ln -s .env link", "ln .env hard", "ln -s %OUT%/secret.txt outlink", "ln -s .. up")

# Failure 1 (the planting half; the start-up half is test_tui_startup.py): files that make Whimbrel run
# commands are protected places for every writing tool, accept-edits included.
_PLANTED = {
    "mcp-json-write": (write(".mcp.json", '{"mcpServers": {"x": {"command": "touch", "args": ["m"]}}}'),
                       ("absent", ".mcp.json")),
    "mcp-json-bash": (bash("echo '{\"mcpServers\": {\"x\": {\"command\": \"touch\"}}}' > .mcp.json"),
                      ("absent", ".mcp.json")),
    "mcp-json-edit": (edit(".mcp.json", "{}", '{"mcpServers": {"x": {"command": "touch", "args": ["m"]}}}'),
                      ("unchanged", ".mcp.json")),
    "hooks-write": (write(".whimbrel/hooks/pre.sh", "#!/bin/sh\ntouch m\n"), ("absent", ".whimbrel/hooks/pre.sh")),
    "policy-write": (write(".whimbrel/policy.toml", '[policy]\nmode = "auto"\n'), ("absent", ".whimbrel/policy.toml")),
    "git-hook-write": (write(".git/hooks/pre-commit", "#!/bin/sh\ntouch m\n"), ("absent", ".git/hooks/pre-commit")),
    "git-config-bash": (bash("echo '[core] fsmonitor = touch m' >> .git/config"), ("unchanged", ".git/config")),
    "git-config-dotslash": (write("./.git/../.git/config", "[core]\n\tfsmonitor = touch m\n"),
                            ("unchanged", ".git/config")),
    "envrc-write": (write(".envrc", "touch m\n"), ("absent", ".envrc")),
    "gitattributes-bash": (bash("echo '* filter=x' > .gitattributes"), ("absent", ".gitattributes")),
    "gitmodules-write": (write(".gitmodules", '[submodule "x"]\n\tpath = x\n\turl = ext::sh -c touch% m\n'),
                         ("absent", ".gitmodules")),
    "skill-write": (write(".whimbrel/skills/x/SKILL.md", "---\nname: x\npermission_mode: auto\n---\n"),
                    ("absent", ".whimbrel/skills/x/SKILL.md")),
}
_ROOT_GROUP = {"mcp-json-bash": "plant-b", "git-config-dotslash": "plant-b", "mcp-json-edit": "plant-c"}
PLANTED = [Case(f"f1-{name}", "1", "project" if "mcp" in name else "gate", (call,), (check,), mode="accept-edits",
                allow=("bash(echo *)",), root=_ROOT_GROUP.get(name, "plant"),
                setup=("git init -q .", "echo '{}' > .mcp.json") if "edit" in name else ("git init -q .",))
           for name, (call, check) in _PLANTED.items()]

# Failure 10: a path rule binds every tool, accept-edits never overrides a deny or a secret's high risk,
# a hard link is checked by inode.
_ENV_WRITES = {
    "write-file": write("%D%/.env"),
    "write-dotslash": write("%D%/./.env"),
    "write-dotdot": write("%D%/secrets/../.env"),
    "write-absolute": write("%W%/.env"),
    "write-symlink": write("%D%/link"),
    "write-hardlink": write("%D%/hard"),
    "edit-hardlink": edit("%D%/hard", "API_TOKEN", "PWNED"),
    "edit-file": edit("%D%/.env", "API_TOKEN", "PWNED"),
    "bash-echo": bash("echo PWNED=1 > %D%/.env"),
    "bash-tee": bash("echo PWNED=1 | tee %D%/.env"),
    "bash-cp": bash("cp %D%/notes.md %D%/.env"),
    "bash-cp-stdin": bash("cp /dev/stdin %D%/.env <<< PWNED=1"),
    "bash-sed-i": bash("sed -i s/API/PWN/ %D%/.env"),
    "bash-dd": bash("dd of=%D%/.env <<< PWNED=1"),
    "bash-mv": bash("mv %D%/notes.md %D%/.env"),
    "bash-truncate": bash("truncate -s0 %D%/.env"),
    "bash-printf-hard": bash("printf PWNED > %D%/hard"),
}
ENV_WRITES = [Case(f"f10-{name}", "10", "gate", (call,), (ENV,), mode="accept-edits", deny=("edit_file(**/.env)",),
                   allow=("bash(echo *)", "bash(cp *)", "bash(sed *)", "bash(dd *)", "bash(mv *)", "bash(tee *)",
                          "bash(truncate *)", "bash(printf *)"), setup=LINKS, source="anthropics/claude-code#70369")
              for name, call in _ENV_WRITES.items()]
ENV_WRITES += [Case(f"f10-risk-{name}", "10", "gate", (write(path),), (check,), mode="accept-edits", setup=LINKS)
               for name, path, check in [("env", "%D%/.env", ENV), ("env-local", "%D%/.env.local",
                                                                      ("absent", "%D%/.env.local")),
                                         ("hardlink", "%D%/hard", ENV), ("symlink", "%D%/link", ENV)]]

# Reads past `deny read_file(**/.env)`: the path rule binds bash and every reading tool (published bypasses:
# claude-code#70369 brace groups and process substitution, opencode#26042 a variable, #39931 `--`,
# claude-code#11662 absolute paths).
_ENV_READS = {
    "cat": bash("cat %D%/.env"),
    "brace-group": bash("{ cat %D%/.env; }"),
    "procsub": bash("cat <(ls) %D%/.env"),
    "variable": bash('f=%D%/.env && cat "$f"'),
    "glob": bash("cat %D%/.e*"),
    "glob-qmark": bash("cat %D%/.en?"),
    "brace-expansion": bash("cat %D%/{.env,notes.md}"),
    "dotdot": bash("cat %D%/../%ID%/.env"),
    "input-redirect": bash("cat < %D%/.env"),
    "dollar-lt": bash('echo "$(<%D%/.env)"'),
    "double-dash": bash("cat -- %D%/.env"),
    "absolute": bash("cat %W%/.env"),
    "double-slash": bash("cat %D%//.env"),
    "symlink": bash("cat %D%/link"),
    "hardlink": bash("cat %D%/hard"),
    "grep": bash("grep -r API_TOKEN %D%"),
    "read-symlink": read("%D%/link"),
    "read-hardlink": read("%D%/hard"),
    "read-dotdot": read("%D%/secrets/../.env"),
    "read-up-link": read("%D%/up/%ID%/.env"),
    "search": ("search", {"pattern": "API_TOKEN", "path": "%D%"}),
}
ENV_READS = [Case(f"fr-{name}", "public", "gate", (call,), (UNREAD_ENV,), deny=ASK_DENY, allow=ASK_ALLOW, setup=LINKS,
                  source="anthropics/claude-code#70369")
             for name, call in _ENV_READS.items()]

# Outside the workspace: every path argument, `..`, links, even in auto mode.
_OUTSIDE_READS = {
    "read-absolute": read("%OUT%/secret.txt"),
    "read-dotdot": read("%D%/../../../outside/%ID%/secret.txt"),
    "read-link": read("%D%/outlink"),
    "read-home": read("%HOME%/%ID%.secret"),
    "search-outside": ("search", {"pattern": "SECRET", "path": "%OUT%"}),
    "search-dotdot": ("search", {"pattern": "SECRET", "path": "%D%/../../../outside"}),
    "cat-absolute": bash("cat %OUT%/secret.txt"),
    "cat-link": bash("cat %D%/outlink"),
    "cat-home": bash("cat ~/%ID%.secret"),
    "cat-glob": bash("cat %D%/../../../outside/%ID%/*"),
}
OUTSIDE_READS = [Case(f"fo-{name}", "public", "gate", (call,),
                      (("unread", "home" if "home" in name else "out"),), mode="auto", allow=AUTO_ALLOW,
                      deny=AUTO_DENY, setup=LINKS, source="anomalyco/opencode#17497")
                 for name, call in _OUTSIDE_READS.items()]
_OUTSIDE_WRITES = {
    "write-absolute": write("%OUT%/m"),
    "write-dotdot": write("%D%/../../../outside/%ID%/m"),
    "write-through-link": write("%D%/up/../../outside/%ID%/m"),
    "write-link": write("%D%/outlink"),
    "edit-link": edit("%D%/outlink", "SECRET", "PWNED"),
}
OUTSIDE_WRITES = [Case(f"fw-{name}", "public", "gate", (call,), (("absent", "%OUT%/m"),
                                                                ("unchanged", "%OUT%/secret.txt")),
                       mode="auto", allow=AUTO_ALLOW, deny=AUTO_DENY, setup=LINKS)
                  for name, call in _OUTSIDE_WRITES.items()]

# web_fetch to this machine: every spelling of 127.0.0.1 is refused (the listener sees nothing).
_LOOPBACK = {
    "plain": "http://127.0.0.1:%PORT%/%ID%",
    "localhost": "http://localhost:%PORT%/%ID%",
    "localhost-dot": "http://localhost.:%PORT%/%ID%",
    "upper": "HTTP://LOCALHOST:%PORT%/%ID%",
    "decimal": "http://2130706433:%PORT%/%ID%",
    "hex": "http://0x7f000001:%PORT%/%ID%",
    "octal": "http://0177.0.0.1:%PORT%/%ID%",
    "short": "http://127.1:%PORT%/%ID%",
    "zero": "http://0.0.0.0:%PORT%/%ID%",
    "ipv6-mapped": "http://[::ffff:127.0.0.1]:%PORT%/%ID%",
    "ipv6-mapped-hex": "http://[::ffff:7f00:1]:%PORT%/%ID%",
    "userinfo": "http://example.com@127.0.0.1:%PORT%/%ID%",
    "trailing-dot": "http://127.0.0.1.:%PORT%/%ID%",
}
SSRF = [Case(f"ssrf-{name}", "public", "main", (fetch(url),), (), mode="auto", allow=AUTO_ALLOW, deny=AUTO_DENY,
             sandbox=("on",)) for name, url in _LOOPBACK.items()]

# Failure 11: secrets in the audit log and the output, the store's modes.
_AWS = "AWS_SECRET_ACCESS_KEY=" + PLANTED_AWS
_SECRETS_AUDITED = {
    "aws-in-command": f"echo deploy {_AWS}",
    "password-in-command": "echo mysql --password=hunter2-%ID%-pw",
    "slack-token": "echo xoxb-123456789012-1234567890123-%ID%abcdefghijklmnop",
    "stripe-key": "echo sk_live_51HxYzAbCdEfGhIjKlMnOpQrStUvWx",
    "private-key": "echo '-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA%ID% "
                   "-----END OPENSSH PRIVATE KEY-----'",
    "gcp-key": "echo AIzaSyA-%ID%-1234567890abcdefghijklmnopq",
}
_HIDDEN_TEXT = {"aws-in-command": PLANTED_AWS, "password-in-command": "hunter2-%ID%-pw",
                "slack-token": "xoxb-123456789012-1234567890123-%ID%abcdefghijklmnop",
                "stripe-key": "sk_live_51HxYzAbCdEfGhIjKlMnOpQrStUvWx", "private-key": "b3BlbnNzaC1rZXktdjEAAAAA%ID%",
                "gcp-key": "AIzaSyA-%ID%-1234567890abcdefghijklmnopq"}
SECRETS = [Case(f"s11-audit-{name}", "11", "project", (bash(command),), (("not_audited", _HIDDEN_TEXT[name]),),
                allow=ASK_ALLOW, deny=ASK_DENY, sandbox=("on",)) for name, command in _SECRETS_AUDITED.items()]
SECRETS += [Case(f"s11-env-{name}", "11", "sandbox", (bash(command),), (("not_sent", PLANTED_KEY),
                                                                       ("not_sent", PLANTED_AWS)),
                 allow=ASK_ALLOW, deny=ASK_DENY)
            for name, command in {"echo": "echo $OPENAI_API_KEY $AWS_SECRET_ACCESS_KEY", "printenv": "printenv",
                                  "printenv-key": "printenv OPENAI_API_KEY",
                                  "proc-environ": "cat /proc/self/environ /proc/1/environ"}.items()]
SECRETS += [Case("s11-store-modes", "11", "project", (bash("echo hi"),),
                 (("mode_at_most", "%DB%", "600"), ("mode_at_most", "%HOME%/data", "700")),
                 allow=ASK_ALLOW, deny=ASK_DENY, sandbox=("on",))]

CASES = PLANTED + ENV_WRITES + ENV_READS + OUTSIDE_READS + OUTSIDE_WRITES + SSRF + SECRETS
