"""The bash tool's jail, attacked for real as root (the test process; CI runs as root) and as an
ordinary user (uid 65534): no capabilities, no remount of /, no host file written, no way into the
host's network namespace, no API keys in the environment, a file-size limit that stops a huge write."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.sandbox import bwrap, jail
from tests.permissions.test_sandbox import _Server as Server
from tests.sandbox.helpers import NOBODY, nobody_reason, open_place, run_jailed
from tools.bash import bash
from tools.context import ToolContext
from tools.errors import ToolError

pytestmark = pytest.mark.skipif(bwrap.available() is None, reason=f"no sandbox here: {bwrap.unavailable_reason()}")
NOBODY_SKIP = nobody_reason() if bwrap.available() else "no sandbox"
USERS = ["root", pytest.param("nobody", marks=pytest.mark.skipif(NOBODY_SKIP is not None, reason=str(NOBODY_SKIP)))]


@pytest.fixture
def place():
    workspace = open_place("jail")
    yield workspace
    shutil.rmtree(workspace, ignore_errors=True)


@pytest.fixture(autouse=True)
def default_settings():
    jail.configure(SimpleNamespace())
    yield
    jail.configure(SimpleNamespace())


@pytest.mark.parametrize("user", USERS)
def test_no_capabilities_no_new_privileges_and_the_filter(place, user):
    done = run_jailed("grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status; id -u", place,
                      as_user=user)
    fields = dict(line.split(":\t") for line in done.stdout.splitlines() if ":\t" in line)
    assert fields["CapEff"] == fields["CapPrm"] == fields["CapBnd"] == "0000000000000000", done.stdout
    assert fields["NoNewPrivs"] == "1" and fields["Seccomp"] == "2", done.stdout
    assert done.stdout.splitlines()[-1] != "0"  # not root inside either


@pytest.mark.parametrize("user", USERS)
def test_remounting_the_root_writable_fails_and_no_host_file_is_written(place, user):
    target = Path("/var/tmp") / f"whimbrel-host-{uuid.uuid4().hex}"
    try:
        done = run_jailed(f"mount -o remount,rw / ; mount -o remount,rw /var/tmp; touch {target}; "
                          f"unshare -Urm sh -c 'mount -o remount,rw / && touch {target}'; echo end", place,
                          as_user=user)
        assert "end" in done.stdout and not target.exists(), done.stderr
    finally:
        target.unlink(missing_ok=True)


@pytest.mark.parametrize("user", USERS)
def test_the_hosts_network_namespace_cannot_be_joined(place, user):
    """/proc/1 is the jail's own init (its own PID namespace); the host's namespaces are not reachable,
    and setns on any namespace file is refused."""
    listener = Server()  # on the host's 127.0.0.1, counting who reached it
    try:
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{listener.port} && echo REACHED"
        done = run_jailed(f"nsenter --net=/proc/1/ns/net bash -c '{probe}'; "
                          f"python3 -c \"import os; os.setns(os.open('/proc/1/ns/net', os.O_RDONLY), 0)\" "
                          f"|| echo SETNS-REFUSED; bash -c '{probe}'; cat /proc/1/comm", place, as_user=user)
        assert "REACHED" not in done.stdout and listener.reached == 0
        assert "SETNS-REFUSED" in done.stdout and "bwrap" in done.stdout, done.stdout + done.stderr
    finally:
        listener.close()


@pytest.mark.parametrize("user", USERS)
def test_no_api_keys_reach_the_jail(place, user, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-must-not-leak")
    done = run_jailed("env", place, as_user=user)
    assert done.returncode == 0 and "must-not-leak" not in done.stdout and "PATH=" in done.stdout


async def test_bash_outside_the_sandbox_starts_from_the_clean_environment_too(tmp_path, monkeypatch):
    """Sandbox off (or no bubblewrap): no wrap_command; still no API keys, and the user's env_pass."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-must-not-leak")
    monkeypatch.setenv("MY_PROJECT_FLAG", "passed-on")
    monkeypatch.setenv("MY_PROJECT_TOKEN", "token-via-a-pattern")
    jail.configure(SimpleNamespace(sandbox_env_pass=["MY_PROJECT_*"]))
    output = await bash({"command": "env"}, ToolContext(workspace=tmp_path, bash_timeout=30))
    assert "must-not-leak" not in output and "MY_PROJECT_FLAG=passed-on" in output
    assert "token-via-a-pattern" not in output  # a pattern never passes a secret-looking name
    jail.configure(SimpleNamespace(sandbox_env_pass=["MY_PROJECT_TOKEN"]))
    output = await bash({"command": "env"}, ToolContext(workspace=tmp_path, bash_timeout=30))
    assert "MY_PROJECT_TOKEN=token-via-a-pattern" in output  # named exactly: the user's choice


@pytest.mark.parametrize("user", USERS)
def test_the_file_size_limit_stops_a_huge_write(place, user):
    jail.configure(SimpleNamespace(sandbox_max_file_mb=1))
    done = run_jailed("head -c 5000000 /dev/zero > big.bin; echo status=$?", place, as_user=user)
    assert "status=0" not in done.stdout
    assert (place / "big.bin").stat().st_size <= 1 << 20


async def test_the_bash_tool_runs_in_the_jail_the_gate_gives(place, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    spec = bwrap.SandboxSpec("workspace-write", place, home=place / "home")
    ctx = ToolContext(workspace=place, bash_timeout=30, wrap_command=lambda argv: bwrap.wrap(argv, spec))
    output = await bash({"command": "grep CapEff /proc/self/status; env; touch inside"}, ctx)
    assert "0000000000000000" in output and "must-not-leak" not in output and (place / "inside").exists()
    with pytest.raises(ToolError):
        await bash({"command": "touch /etc/whimbrel-bash-jail"}, ctx)
    assert not Path("/etc/whimbrel-bash-jail").exists()


async def test_a_timed_out_jailed_command_leaves_no_process_behind(place):
    """The jail's command runs in a session of its own (--new-session), out of the group the bash tool
    kills; killing bwrap still ends it all (--die-with-parent, and its PID namespace goes with its init)."""
    import subprocess

    seconds = 300 + uuid.uuid4().int % 600
    spec = bwrap.SandboxSpec("workspace-write", place, home=place / "home")
    ctx = ToolContext(workspace=place, bash_timeout=1, wrap_command=lambda argv: bwrap.wrap(argv, spec))
    with pytest.raises(ToolError, match="timed out"):
        await bash({"command": f"sleep {seconds} & setsid sleep {seconds} & sleep {seconds}"}, ctx)
    for _ in range(100):  # the kernel reaps a dead namespace's processes asynchronously
        left = subprocess.run(["pgrep", "-f", f"sleep {seconds}"], capture_output=True, text=True).stdout
        if not left:
            break
        await asyncio.sleep(0.05)
    assert not left


@pytest.mark.skipif(NOBODY_SKIP is not None, reason=str(NOBODY_SKIP))
def test_the_process_limit_stops_a_fork_bomb_of_an_ordinary_user(place):
    """RLIMIT_NPROC binds an ordinary user (the kernel exempts the real root: a labelled gap, where
    run_code and math still cannot fork at all through their seccomp filter)."""
    # the limit counts every task of the user, other tests' (and their zombies) too: 40 above what runs now
    jail.configure(SimpleNamespace(sandbox_max_processes=tasks_of(NOBODY) + 40))
    (place / "bomb.py").write_text(FORK_BOMB)
    done = run_jailed("python3 bomb.py", place, as_user="nobody")
    counts = [int(w.split("=")[1]) for w in done.stdout.split() if w.startswith("started=")]
    assert counts and 0 < counts[0] < 100, done.stdout + done.stderr


FORK_BOMB = """
import os, time
started = 0
for _ in range(100):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)  # ended with the jail: its PID namespace dies with the script
        os._exit(0)
    started += 1
print(f"started={started}")
"""


def tasks_of(uid: int) -> int:
    """How many processes and threads `uid` has now (what RLIMIT_NPROC counts)."""
    count = 0
    for task in Path("/proc").glob("[0-9]*/task/[0-9]*"):
        try:
            status = (task / "status").read_text()
        except OSError:
            continue
        if any(line.startswith("Uid:") and line.split()[1] == str(uid) for line in status.splitlines()):
            count += 1
    return count
