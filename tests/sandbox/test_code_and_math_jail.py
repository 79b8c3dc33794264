"""run_code and math in the smallest jail, attacked for real: the program acts on the world only
through `tools.*`. Each attack is run and the side effect is checked on disk (marker files, the
workspace's .git and .env unchanged); without bubblewrap both refuse to run."""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from pathlib import Path

import pytest

from app.sandbox import bwrap
from tests.tools.helpers import run
from tools import code_run, math_tool
from tools.code_run import CodeLimits, CodeRun
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import ToolRegistry

pytestmark = pytest.mark.skipif(bwrap.available() is None, reason=f"no sandbox here: {bwrap.unavailable_reason()}")
LIBC = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    (root / ".env").write_text("KEY=original\n")
    return root


@pytest.fixture
def marker():
    place = Path("/var/tmp") / f"whimbrel-marker-{uuid.uuid4().hex}"
    yield place
    place.unlink(missing_ok=True)


async def program(code: str) -> tuple[str, str | None]:
    """(what it printed, its error) of one program whose tool calls all answer "ok"."""
    async def dispatch(tool: str, arguments: dict) -> tuple[str, bool]:
        return "ok", False

    outcome = await CodeRun(code, {"read_file": "read_file"}, dispatch, CodeLimits(timeout=20)).run()
    return outcome.output, outcome.error


async def test_the_program_cannot_touch_the_workspace_by_path(workspace):
    targets = [workspace / ".git" / "hooks" / "pre-commit", workspace / ".git" / "config", workspace / ".env"]
    code = "\n".join(f"try:\n    open({str(t)!r}, 'w').write('[core]\\n\\tfsmonitor = touch /tmp/x\\n')\n"
                     f"except OSError as e:\n    print('refused', type(e).__name__)" for t in targets)
    output, error = await program(code)
    assert error is None and output.count("refused") == 3, output
    assert not targets[0].exists() and "fsmonitor" not in targets[1].read_text()
    assert targets[2].read_text() == "KEY=original\n"


async def test_the_program_reads_nothing_outside_the_jail(workspace, tmp_path):
    (tmp_path / "outside.txt").write_text("host secret")
    code = "\n".join(f"try:\n    print(open({p!r}).read())\nexcept OSError as e:\n    print('refused', e.errno)"
                     for p in ("/etc/passwd", str(tmp_path / "outside.txt"), str(workspace / ".env"),
                               str(Path.home() / ".bashrc")))
    output, error = await program(code)
    assert error is None and output.count("refused 2") == 4, output  # not there at all
    assert "root:" not in output and "host secret" not in output and "original" not in output


async def test_ctypes_execve_does_not_start_a_shell(marker):
    output, error = await program(
        LIBC + f"argv = (ctypes.c_char_p * 4)(b'/bin/sh', b'-c', b'touch {marker}', None)\n"
        "print('execve', libc.execve(b'/bin/sh', argv, None), ctypes.get_errno())\n"
        "print('fork', libc.fork(), ctypes.get_errno())\n")
    assert "execve -1 1" in output and "fork -1 1" in output, (output, error)
    assert not marker.exists()


async def test_no_capabilities_no_keys_and_a_bounded_tmp(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    output, error = await program(
        "import os\nprint([l for l in open('/proc/self/status') if l.startswith('CapEff')])\n"
        "print(sorted(os.environ))\nprint(os.environ.get('OPENAI_API_KEY'))\n"
        "try:\n    open('/tmp/big', 'wb').write(b'x' * (100 << 20))\nexcept OSError as e:\n    print('big', e.errno)\n")
    assert error is None, error
    assert "CapEff:\\t0000000000000000" in output and "sk-must-not-leak" not in output
    assert "big 27" in output or "big 28" in output  # EFBIG (the file-size limit) or ENOSPC (the tmpfs)


async def test_without_bubblewrap_run_code_and_math_refuse(monkeypatch, tmp_path):
    """An in-Python jail is not a sandbox: no bubblewrap, no program (stands in for a machine without it)."""
    monkeypatch.setattr(bwrap, "available", lambda: None)
    with pytest.raises(ToolError, match="run_code needs the OS sandbox"):
        await program("print(1)")
    with pytest.raises(ToolError, match="math needs the OS sandbox"):
        await math_tool.math({"code": "1 + 1"}, ToolContext(workspace=tmp_path))
    assert code_run.NO_SANDBOX and math_tool.NO_SANDBOX


def escape(marker: Path) -> str:
    """The known escape of math's in-Python jail: attrgetter to the real __import__, then fork_exec."""
    fork_exec_args = ("[b'/bin/sh', b'-c', b'mount -o remount,rw / ; touch " + str(marker) + "'], [b'/bin/sh'], "
                      "True, (w,), None, None, -1, -1, -1, -1, -1, -1, r, w, False, False, -1, None, None, None, "
                      "-1, None" + (", True" if sys.version_info >= (3, 11) else "") + ")")
    return ("import operator\n"
            "subs = operator.attrgetter('__class__.__base__.__subclasses__')(())()\n"
            "wrap = [c for c in subs if operator.attrgetter('__name__')(c) == '_wrap_close'][0]\n"
            "imp = operator.attrgetter('__init__.__globals__')(wrap)['__builtins__']['__import__']\n"
            "r, w = imp('os').pipe()\n"
            f"imp('_posixsubprocess').fork_exec({fork_exec_args}\n")


async def test_the_math_escape_leaves_no_marker(marker, tmp_path):
    text, is_error = await run(ToolRegistry.load_builtin(), ToolContext(workspace=tmp_path), "math", {"code": escape(marker)})
    assert is_error and "Operation not permitted" in text, text  # the filter, not a wrong signature
    assert not marker.exists()


async def test_the_math_escape_through_mcp_serve_in_auto_mode(marker, tmp_path):
    """`whimbrel mcp serve --mode auto` offers math by default: the same escape, through the real SDK client."""
    from mcp import Client

    from tests.mcp.test_serve import stdio_params

    workspace = tmp_path / "ws"
    workspace.mkdir()
    params = stdio_params(workspace, "--mode", "auto")
    params.env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])  # this checkout's code
    async with Client(params, read_timeout_seconds=60) as client:
        result = await client.call_tool("math", {"code": escape(marker)})
        text = result.content[0].text
    assert result.is_error and "Operation not permitted" in text, text
    assert not marker.exists()


@pytest.mark.skipif(os.getuid() != 0 or shutil.which("setpriv") is None, reason="needs root to become uid 65534")
def test_the_math_jail_holds_for_an_ordinary_user_too(marker):
    """The same jail started by uid 65534. Whimbrel's Python may live where that user cannot read (here
    under /root): the system's python3 runs the runner then, which is all the jail needs."""
    import subprocess

    from tests.sandbox.helpers import AS_NOBODY

    def readable(*paths: str) -> bool:
        return subprocess.run([*AS_NOBODY, "ls", *paths], capture_output=True).returncode == 0

    interpreter = None if readable(sys.base_prefix, sys.prefix) else "/usr/bin/python3"
    if interpreter is not None and not readable(interpreter, str(math_tool.RUNNER)):
        pytest.skip("no Python uid 65534 may run")
    started = math_tool.launch(20, interpreter)
    try:
        done = subprocess.run([*AS_NOBODY, *started.argv], input=escape(marker), capture_output=True, text=True,
                              timeout=60, **started.kwargs())
    finally:
        started.started()
    assert "Operation not permitted" in done.stderr and not marker.exists(), done.stderr
