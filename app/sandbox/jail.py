"""What every command Whimbrel starts for the model gets, sandbox or not: an environment built from
an allow-list (never Whimbrel's own, which holds API keys), resource limits, its own session.

The user may pass more variables (`[sandbox] env_pass`), and set the limits (`[sandbox]
max_file_mb`, `max_processes`); the faces call `configure()` once they read the config. A
`Launch` is one ready command: its argv, environment, the descriptors it must inherit (bubblewrap's
seccomp filter) and the limits to set in the child before it runs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

# Names a command may see from Whimbrel's own environment (everything else is dropped)
ALLOWED = ("PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "COLORTERM",
           "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "EDITOR", "VISUAL", "TMPDIR", "DISPLAY",
           "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "SSL_CERT_FILE", "SSL_CERT_DIR", "VIRTUAL_ENV")
ALLOWED_PREFIXES = ("LC_",)
# Never passed on, even when `env_pass` names them through a pattern (a name listed exactly is the
# user's own choice and is passed)
SECRET = re.compile(r"(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|COOKIE|SESSION)S?(_|$)"
                    r"|^(AWS|AZURE|GCP|GOOGLE|OPENAI|ANTHROPIC|GEMINI|GITHUB|GH|GITLAB|HF|HUGGINGFACE|STRIPE|SLACK|"
                    r"TAVILY|WHIMBREL)_", re.IGNORECASE)
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
GIB = 1 << 30


@dataclass(frozen=True)
class JailSettings:
    """`[sandbox]` in config.toml."""

    env_pass: tuple[str, ...] = ()  # extra variables to pass; `NAME` or a prefix `NAME_*`
    max_file_bytes: int = GIB  # RLIMIT_FSIZE: the largest file a command may write
    max_processes: int = 8192  # RLIMIT_NPROC: all the user's processes and threads (the real root is exempt)
    hidden: tuple[Path, ...] = ()  # Whimbrel's data and config: hidden in every jail (hooks' too)


_settings = JailSettings()


def configure(config: Any, hidden: list[Path] | tuple[Path, ...] = ()) -> JailSettings:
    """Take `[sandbox]` from a loaded config, and the places no jail may see (Whimbrel's data and
    config); the faces call this once they read the config."""
    global _settings
    mb = getattr(config, "sandbox_max_file_mb", None)
    _settings = JailSettings(hidden=tuple(Path(p) for p in hidden),
        env_pass=tuple(getattr(config, "sandbox_env_pass", ()) or ()),
        max_file_bytes=int(mb * (1 << 20)) if isinstance(mb, (int, float)) and mb > 0 else GIB,
        max_processes=int(getattr(config, "sandbox_max_processes", 8192) or 8192))
    return _settings


def settings() -> JailSettings:
    return _settings


def _passed(name: str, extra: tuple[str, ...]) -> bool:
    if name in ALLOWED or name.startswith(ALLOWED_PREFIXES) or name in extra:
        return True
    return any(p.endswith("*") and name.startswith(p[:-1]) and not SECRET.search(name) for p in extra)


def clean_env(source: dict[str, str] | None = None, extra: tuple[str, ...] | None = None,
              **overrides: str) -> dict[str, str]:
    """The allow-listed part of `source` (Whimbrel's environment by default), plus the user's
    `env_pass` names, then `overrides`. PATH is always set."""
    source = dict(os.environ if source is None else source)
    extra = _settings.env_pass if extra is None else extra
    env = {name: value for name, value in source.items() if _passed(name, extra)}
    env.setdefault("PATH", SAFE_PATH)
    env.update(overrides)
    return env


def limiter(max_file_bytes: int | None = None, max_processes: int | None = None,
            extra: Callable[[], None] | None = None) -> Callable[[], None]:
    """A preexec function: a new session, core dumps off, file size and process count capped (hard
    limits, so the command cannot raise them)."""
    size = _settings.max_file_bytes if max_file_bytes is None else max_file_bytes
    count = _settings.max_processes if max_processes is None else max_processes

    def apply() -> None:
        import resource

        os.setsid()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        if count > 0:
            resource.setrlimit(resource.RLIMIT_NPROC, (count, count))
        if extra is not None:
            extra()
    return apply


@dataclass
class Launch:
    """One command ready to start: `asyncio.create_subprocess_exec(*launch.argv, **launch.kwargs())`,
    then `launch.started()` (closes what only the child needed)."""

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...] = ()
    preexec: Callable[[], None] = field(default_factory=limiter)
    sandboxed: bool = False

    def kwargs(self) -> dict[str, Any]:
        return {"env": self.env, "pass_fds": self.pass_fds, "preexec_fn": self.preexec}

    def started(self) -> None:
        for fd in self.pass_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.pass_fds = ()


def plain(argv: list[str], env: dict[str, str] | None = None) -> Launch:
    """A command outside the sandbox: still the clean environment, its own session, no core dumps and
    the file-size limit. Not the process limit: outside a user namespace it counts every process and
    thread the user has (a desktop's browser too), so it would refuse ordinary commands."""
    return Launch(list(argv), clean_env() if env is None else env, preexec=limiter(max_processes=0))
