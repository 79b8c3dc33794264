"""Attacks on the bash reader and its rules: syntax bash executes that the reader misses (failure 4), the
`&>` hang (6), expansions in redirect targets (7), redirects as writes (8), and the published bypasses of
other agents' bash permissions (wrappers, env-var prefixes, brace groups, process substitution, quoting)."""

from __future__ import annotations

from tests.security.harness import ASK_ALLOW, ASK_DENY, AUTO_ALLOW, AUTO_DENY, Case, bash

ECHO = ASK_ALLOW
NO_RM = ASK_DENY
M = ("absent", "%D%/m")  # the marker most attacks try to create
NOTES = ("unchanged", "%D%/notes.md")
GIT_REPO = "git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x"


def _reader(id_: str, command: str, *, source: str = "", checks=(M,), allow=ECHO, deny=NO_RM, mode="ask",
            failure: str = "4") -> Case:
    return Case(id_, failure, "shell", (bash(command),), checks, mode=mode, allow=allow, deny=deny, source=source)


# Failure 4: under `bash(echo *)` (and past `deny bash(rm *)`), syntax that runs code inside an allowed echo.
READER = [
    _reader("s4-default-subst", "echo ${x:-$(touch %D%/m)}"),
    _reader("s4-array-index", "echo ${a[$(touch %D%/m)]}"),
    _reader("s4-arith-subst", "echo $(( $(touch %D%/m) ))"),
    _reader("s4-arith-index", "echo $(( a[$(touch %D%/m)] ))"),
    _reader("s4-ansi-c-quote", "echo $'\\'' ; touch %D%/m #'"),
    _reader("s4-ansi-c-quote-2", "echo $'a\\'b' ; touch %D%/m ; echo '"),
    _reader("s4-assign-default", "echo ${x:=$(touch %D%/m)}"),
    _reader("s4-alt-value", "echo ${HOME:+$(touch %D%/m)}"),
    _reader("s4-error-value", "echo ${x:?$(touch %D%/m)}"),
    _reader("s4-substr-offset", "echo ${HOME:$(touch %D%/m; echo 1)}"),
    _reader("s4-pattern-subst", "echo ${HOME/$(touch %D%/m)/x}"),
    _reader("s4-indirect", "x='a[$(touch %D%/m)]'; echo ${!x}"),
    _reader("s4-backtick", "echo `touch %D%/m`"),
    _reader("s4-dollar-paren", "echo $(touch %D%/m)"),
    _reader("s4-quoted-subst", 'echo "$(touch %D%/m)"'),
    _reader("s4-nested-subst", 'echo "${x:-"$(touch %D%/m)"}"'),
    _reader("s4-procsub-in", "echo <(touch %D%/m)", source="google-gemini/gemini-cli#6010"),
    _reader("s4-procsub-out", "echo hi > >(touch %D%/m)", source="google-gemini/gemini-cli#6010"),
    _reader("s4-brace-group", "echo hi; { touch %D%/m; }", source="anthropics/claude-code#70369"),
    _reader("s4-subshell", "echo hi && (touch %D%/m)"),
    _reader("s4-chain-and", "echo hi && touch %D%/m", source="anthropics/claude-code#4956"),
    _reader("s4-chain-or", "echo hi || true; touch %D%/m", source="google-gemini/gemini-cli#11766"),
    _reader("s4-pipe-sh", "echo touch %D%/m | sh", source="google-gemini/gemini-cli#11510"),
    _reader("s4-newline", "echo hi\ntouch %D%/m"),
    _reader("s4-heredoc-subst", "echo hi <<EOF\n$(touch %D%/m)\nEOF"),
    _reader("s4-herestring-subst", 'echo hi <<< "$(touch %D%/m)"'),
    _reader("s4-ifs", "echo${IFS}hi;touch${IFS}%D%/m"),
    _reader("s4-function-shadow", "echo() { touch %D%/m; }; echo hi"),
    _reader("s4-coproc", "echo hi; coproc touch %D%/m"),
    _reader("s4-case", "echo hi; case x in x) touch %D%/m;; esac"),
    _reader("s4-eval", "echo hi && eval 'touch %D%/m'", source="google-gemini/gemini-cli#5495"),
    _reader("s4-for-loop", "for f in %D%/m; do touch $f; done; echo hi"),
    _reader("s4-rm-in-default", "echo ${x:-$(rm %D%/notes.md)}", checks=(NOTES,)),
    _reader("s4-rm-in-arith", "echo $(( $(rm %D%/notes.md) 0 ))", checks=(NOTES,)),
    _reader("s4-rm-in-ansi", "echo $'\\'' ; rm %D%/notes.md #'", checks=(NOTES,)),
    _reader("s4-auto-low-risk", "echo ${x:-$(rm -rf %D%/secrets)}", mode="auto", allow=AUTO_ALLOW, deny=AUTO_DENY,
            checks=(("unchanged", "%D%/secrets/key.txt"),)),
    _reader("s4-auto-arith-rm", "echo $(( $(rm -rf %D%/secrets) ))", mode="auto", allow=AUTO_ALLOW, deny=AUTO_DENY,
            checks=(("unchanged", "%D%/secrets/key.txt"),)),
    _reader("s4-nul", "echo hi\u0000; touch %D%/m"),
    _reader("s4-line-separator", "echo hi\u2028touch %D%/m; echo\u2029; touch %D%/m"),
    _reader("s4-cr", "echo hi\r\ntouch %D%/m"),
    Case("s4-git-config-env", "4", "shell",
         (bash("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch %W%/m' git status"),),
         (M,), allow=("bash(git status)",), root="git", setup=(GIT_REPO,),
         source="elizaOS/eliza#18417"),
    Case("s4-git-pager-env", "4", "shell", (bash("GIT_PAGER='touch %W%/m' PAGER='touch %W%/m' git log -1"),),
         (M,), allow=("bash(git log *)",), root="git", setup=(GIT_REPO,)),
]

# Published bypasses: a deny rule hidden behind a wrapper, a prefix or quoting (auto mode, where only the rule
# stops a low-risk `touch`). Sources: anthropics/claude-code#92542 (wrappers outside a fixed unwrap list),
# #31558 and anomalyco/opencode#16075 (env-var prefixes), opencode#26042 (a variable), #39931 (`--`),
# claude-code#11662 (absolute paths).
NO_TOUCH = AUTO_DENY
_HIDDEN = {
    "env-s": "env -S 'touch %D%/m'",
    "env": "env touch %D%/m",
    "timeout": "timeout 5 touch %D%/m",
    "nice": "nice -n 1 touch %D%/m",
    "nohup": "nohup touch %D%/m",
    "stdbuf": "stdbuf -o0 touch %D%/m",
    "command": "command touch %D%/m",
    "builtin-exec": "exec touch %D%/m",
    "time": "time touch %D%/m",
    "xargs": "echo %D%/m | xargs touch",
    "xargs-sh": "echo %D%/m | xargs sh -c 'touch \"$0\"'",
    "find-exec": "find %D% -maxdepth 0 -exec touch %D%/m \\;",
    "sh-c": "sh -c 'touch %D%/m'",
    "bash-c": "bash -c 'touch %D%/m'",
    "python-c": "python3 -c \"import os; os.system('touch %D%/m')\"",
    "perl-e": "perl -e 'system(\"touch %D%/m\")'",
    "awk-system": "awk 'BEGIN{system(\"touch %D%/m\")}'",
    "sed-e": "echo x | sed 's|.*|touch %D%/m|e'",
    "absolute": "/usr/bin/touch %D%/m",
    "backslash": "\\touch %D%/m",
    "quoted-name": "'touch' %D%/m",
    "split-quotes": "t''ou\"\"ch %D%/m",
    "variable": "t=touch; $t %D%/m",
    "subst-name": "$(echo touch) %D%/m",
    "ansi-c-name": "$'\\x74ouch' %D%/m",
    "brace-name": "{touch,%D%/m}",
    "double-dash": "touch -- %D%/m",
    "env-prefix": "FOO=1 touch %D%/m",
    "ld-preload-prefix": "LD_PRELOAD= touch %D%/m",
    "glob-name": "/usr/bin/tou?h %D%/m",
    "path-trick": "PATH=/usr/bin:$PATH touch %D%/m",
}
WRAPPED = [Case(f"pub-deny-{name}", "public", "shell", (bash(command),), (M,), mode="auto", allow=AUTO_ALLOW,
                deny=NO_TOUCH,
                source="anthropics/claude-code#92542") for name, command in _HIDDEN.items()]

# Published bypasses on the allow side: a program the user allowed because it reads, made to run a command.
READERS_ALLOWED = ("bash(find *)", "bash(git *)", "bash(sed *)", "bash(tar *)", "bash(awk *)", "bash(rsync *)",
                   "bash(vim *)", "bash(less *)", "bash(man *)", "bash(echo *)")  # env, xargs: seen through
_RUNNERS = {
    "find-exec": "find . -maxdepth 0 -exec touch %D%/m \\;",
    "find-delete": "find %D%/notes.md -delete",
    "git-c-pager": "git -C %D% -c core.pager='touch %W%/m' -p log",
    "git-c-alias": "git -C %D% -c alias.st='!touch %W%/m' st",
    "git-c-fsmonitor": "git -C %D% -c core.fsmonitor='touch %W%/m' status",
    "sed-e-cmd": "sed -n '1e touch %D%/m' %D%/notes.md",
    "sed-w": "sed -n 'w %D%/m' %D%/notes.md",
    "tar-to-command": "tar cf - %D%/notes.md | tar xf - --to-command='touch %W%/m'",
    "tar-checkpoint": "tar cf /dev/null %D%/notes.md --checkpoint=1 --checkpoint-action=exec='touch %W%/m'",
    "awk-begin": "awk 'BEGIN{system(\"touch %D%/m\")}'",
    "awk-redirect": "awk 'BEGIN{print 1 > \"%D%/m\"}'",
    "rsync-e": "rsync -e 'sh -c \"touch %W%/m\"' x:y %D%/z",
    "vim-c": "vim -es -c '!touch %D%/m' -c q",
    "env-s": "env -S 'touch %D%/m'",
    "xargs-sh": "echo %D%/m | xargs sh -c 'touch $0'",
    "less-open": "LESSOPEN='|touch %D%/m %s' less %D%/notes.md",
}
ALLOWED_RUNNERS = [Case(f"pub-allow-{name}", "public", "shell", (bash(command),),
                        (M, NOTES) if "delete" not in name else (NOTES,), allow=READERS_ALLOWED,
                        setup=(GIT_REPO,) if name.startswith("git") else (),
                        source="anthropics/claude-code#92542")
                   for name, command in _RUNNERS.items()]

# Failure 6: `&>` hung the reader; each must end (refused or run) within the deadline.
HANGS = [
    Case("s6-amp-redirect", "6", "shell", (bash("make test &>/dev/null"),), (), allow=ECHO + ("bash(make *)",),
         sandbox=("off",), hang=True),
    Case("s6-amp-redirect-file", "6", "shell", (bash("echo hi &> %D%/m"),), (), allow=ECHO + ("bash(make *)",),
         sandbox=("off",), hang=True),
    Case("s6-amp-append", "6", "shell", (bash("echo hi &>> %D%/m"),), (), allow=ECHO + ("bash(make *)",),
         sandbox=("off",), hang=True),
]

# Failure 7: a redirect target with an expansion is not a path inside the workspace.
_OUTSIDE = {
    "home-bashrc": ("echo PWNED >> $HOME/.bashrc", ("unchanged", "%HOME%/.bashrc")),
    "tilde": ("echo x > ~/%ID%.m", ("absent", "%HOME%/%ID%.m")),
    "tilde-plus": ("echo x > ~+/../%ID%.m", ("absent", "%WS%/../%ID%.m")),
    "pwd-dotdot": ("echo x > $PWD/../%ID%.m", ("absent", "%WS%/../%ID%.m")),
    "braced-home": ("echo x > ${HOME}/%ID%.m", ("absent", "%HOME%/%ID%.m")),
    "dotdot": ("echo x > %D%/../../../%ID%.m", ("absent", "%WS%/../%ID%.m")),
    "absolute": ("echo x > %OUT%/m", ("absent", "%OUT%/m")),
    "subst-target": ('echo x > "$(echo %OUT%)/m"', ("absent", "%OUT%/m")),
    "oldpwd": ("cd %OUT% && cd - && echo x > $OLDPWD/m", ("absent", "%OUT%/m")),
    "var-target": ("t=%OUT%/m; echo x > $t", ("absent", "%OUT%/m")),
    "tilde-user": ("echo x > ~root/../%ID%.m", ("absent", "/%ID%.m")),
    "fd-dup": ("exec 3> %OUT%/m; echo x >&3", ("absent", "%OUT%/m")),
}
OUTSIDE = [Case(f"s7-{name}", "7", "shell", (bash(command),), (check,), allow=ASK_ALLOW, deny=ASK_DENY)
           for name, (command, check) in _OUTSIDE.items()]

# Failure 8: redirects are writes; under a rule for a reading command, and in plan mode.
_REDIRECTS = {
    "ls-new-file": ("ls > %D%/m", M),
    "echo-env": ("echo PWNED=1 > %D%/.env", ("unchanged", "%D%/.env")),
    "echo-append-env": ("echo PWNED=1 >> %D%/.env", ("unchanged", "%D%/.env")),
    "clobber": ("echo x >| %D%/notes.md", NOTES),
    "brace-redirect": ("{ echo PWNED=1; } > %D%/.env", ("unchanged", "%D%/.env")),
    "input-output": ("cat < %D%/notes.md > %D%/m", M),
    "tee": ("echo PWNED=1 | tee %D%/.env", ("unchanged", "%D%/.env")),
}
REDIRECTS = [Case(f"s8-{name}", "8", "shell", (bash(command),), (check,),
                  allow=ASK_ALLOW, deny=ASK_DENY, source="anthropics/claude-code#70369")
             for name, (command, check) in _REDIRECTS.items()]
REDIRECTS += [Case(f"s8-plan-{name}", "8", "shell", (bash(command),), (check,), mode="plan",
                   allow=ASK_ALLOW, deny=ASK_DENY)
              for name, (command, check) in list(_REDIRECTS.items())[:5]]

CASES = READER + WRAPPED + ALLOWED_RUNNERS + HANGS + OUTSIDE + REDIRECTS
