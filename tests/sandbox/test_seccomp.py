"""The sandbox's seccomp filters: well-formed for every machine they know, and refusing for real, inside
the bash tool's jail, what they say they refuse (a program calls the kernel through ctypes)."""

from __future__ import annotations

import shutil
import struct

import pytest

from app.sandbox import bwrap, seccomp
from tests.sandbox.helpers import open_place, run_jailed

JUMPS = {seccomp.JEQ, seccomp.JGE, seccomp.JSET}


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
@pytest.mark.parametrize("build", [seccomp.jail_filter, seccomp.no_spawn_filter])
def test_every_jump_lands_inside_the_program_and_it_ends_in_a_return(machine, build):
    code = build(machine)
    program = [struct.unpack("=HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
    assert 0 < len(program) < 4096 and program[-1][0] == seccomp.RET
    for index, (op, true, false, _k) in enumerate(program):
        if op in JUMPS:
            assert index + 1 + max(true, false) < len(program)
    assert program[1][3] == seccomp.ARCHES[machine]  # another ABI is refused before any number is read


def test_an_unknown_machine_gets_no_filter():
    assert seccomp.jail_filter("riscv64") is None and not seccomp.supported("riscv64")


PROBE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def said(name, result):
    print(name, result, ctypes.get_errno())
said("ptrace", libc.ptrace(0, 0, None, None))                  # PTRACE_TRACEME
said("unshare", libc.unshare(0x10000000))                       # CLONE_NEWUSER
said("keyctl", libc.syscall(250 if os.uname().machine == "x86_64" else 219, 0, 0, 0, 0))
said("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
"""


@pytest.mark.skipif(bwrap.available() is None or not seccomp.supported() or shutil.which("python3") is None,
                    reason="needs bubblewrap, a known machine and the system's python3")
def test_the_jail_refuses_ptrace_new_namespaces_keyrings_and_mounts():
    place = open_place("seccomp")
    try:
        (place / "probe.py").write_text(PROBE)
        done = run_jailed("python3 probe.py", place)
    finally:
        shutil.rmtree(place, ignore_errors=True)
    results = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()}
    for name in ("ptrace", "unshare", "keyctl", "mount"):
        assert results[name] == ["-1", "1"], done.stdout + done.stderr  # EPERM
