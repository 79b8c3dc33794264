"""Seccomp filters as classic BPF, built here in pure Python (no libseccomp).

Two filters, one builder:

- `jail_filter()`: loaded by bubblewrap (`--seccomp FD`) into everything the sandbox runs. It refuses
  (EPERM) what a confined program never needs and an escape does: ptrace, mounts (old and new API),
  unshare/setns and clone with a namespace flag, kernel keyrings, bpf, perf events, modules, kexec,
  swap, reboot, open_by_handle_at, userfaultfd, process_vm_*, acct. clone3 says ENOSYS (its flags sit in
  memory a filter cannot read), so the C library falls back to clone, whose flags it can.
- `no_spawn_filter()`: the same plus no exec and no new processes (fork, vfork, clone without
  CLONE_THREAD), installed by run_code's and math's runners once they have started, so the program
  can neither replace its interpreter (ctypes `execve`) nor fork; threads still work.

Any other ABI on the same machine (i386 on x86_64, x32) is refused outright. Only x86_64 and aarch64
are known; elsewhere `supported()` is False and callers say so (the other walls still hold).
"""

from __future__ import annotations

import os
import struct

ARCHES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# name: (x86_64, aarch64); None where the ABI has no such call (aarch64 forks through clone)
NUMBERS: dict[str, tuple[int | None, int | None]] = {
    "ptrace": (101, 117), "mount": (165, 40), "umount2": (166, 39), "unshare": (272, 97), "setns": (308, 268),
    "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218), "pivot_root": (155, 41),
    "chroot": (161, 51), "bpf": (321, 280), "perf_event_open": (298, 241), "kexec_load": (246, 104),
    "kexec_file_load": (320, 294), "init_module": (175, 105), "finit_module": (313, 273),
    "delete_module": (176, 106), "swapon": (167, 224), "swapoff": (168, 225), "reboot": (169, 142),
    "open_by_handle_at": (304, 265), "userfaultfd": (323, 282), "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271), "open_tree": (428, 428), "move_mount": (429, 429), "fsopen": (430, 430),
    "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442),
    "acct": (163, 89), "clone": (56, 220), "clone3": (435, 435), "fork": (57, None), "vfork": (58, None),
    "execve": (59, 221), "execveat": (322, 281),
}
REFUSED = ("ptrace", "mount", "umount2", "unshare", "setns", "keyctl", "add_key", "request_key", "pivot_root",
           "chroot", "bpf", "perf_event_open", "kexec_load", "kexec_file_load", "init_module", "finit_module",
           "delete_module", "swapon", "swapoff", "reboot", "open_by_handle_at", "userfaultfd",
           "process_vm_readv", "process_vm_writev", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
           "fspick", "mount_setattr", "acct")
NO_SPAWN = ("fork", "vfork", "execve", "execveat")
CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00020000
EPERM, ENOSYS = 1, 38
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
LD_W_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
NR, ARCH, ARG0 = 0, 4, 16  # offsets in struct seccomp_data (ARG0: the low 32 bits, little-endian)


def supported(machine: str | None = None) -> bool:
    """Whether this machine's syscall numbers are known here."""
    return (machine or os.uname().machine) in ARCHES


def _program(machine: str, no_spawn: bool) -> list[tuple[int, int, int, int]]:
    """(code, jump if true, jump if false, k) instructions; each test is followed by its refusal."""
    column = 0 if machine == "x86_64" else 1
    number = {name: pair[column] for name, pair in NUMBERS.items()}
    refused = [number[n] for n in REFUSED + (NO_SPAWN if no_spawn else ()) if number[n] is not None]
    deny = (RET, 0, 0, RET_ERRNO | EPERM)
    program = [(LD_W_ABS, 0, 0, ARCH), (JEQ, 1, 0, ARCHES[machine]), deny,  # another ABI: nothing at all
               (LD_W_ABS, 0, 0, NR), (JGE, 0, 1, 0x40000000), deny]  # x32 numbers: nothing
    for nr in refused:
        program += [(JEQ, 0, 1, nr), deny]
    program += [(JEQ, 0, 1, number["clone3"]), (RET, 0, 0, RET_ERRNO | ENOSYS),
                (JEQ, 1, 0, number["clone"]), (RET, 0, 0, RET_ALLOW),
                (LD_W_ABS, 0, 0, ARG0), (JSET, 0, 1, CLONE_NAMESPACES), deny]
    if no_spawn:  # a thread shares everything; anything else is a new process
        program += [(JSET, 1, 0, CLONE_THREAD), deny]
    return program + [(RET, 0, 0, RET_ALLOW)]


def _encode(program: list[tuple[int, int, int, int]]) -> bytes:
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def jail_filter(machine: str | None = None) -> bytes | None:
    """The sandbox's filter as bubblewrap reads it (struct sock_filter array), or None where unknown."""
    machine = machine or os.uname().machine
    return _encode(_program(machine, no_spawn=False)) if supported(machine) else None


def no_spawn_filter(machine: str | None = None) -> bytes | None:
    """The jail's filter plus no exec and no new processes, for a runner to install on itself."""
    machine = machine or os.uname().machine
    return _encode(_program(machine, no_spawn=True)) if supported(machine) else None


def filter_fd(program: bytes) -> int:
    """A readable pipe holding `program`, inheritable, for `bwrap --seccomp FD` (the caller closes it
    once the child started). A pipe, not a shared file: each bwrap reads its own copy from the start."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write_end)
    os.set_inheritable(read_end, True)
    return read_end
