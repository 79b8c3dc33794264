"""Runs one math snippet (read from stdin) in a child process: trimmed builtins, an import guard, and
an audit hook that refuses files, processes, sockets and ctypes once the snippet starts — a first
filter only. Before the snippet runs it installs the seccomp filter given as its second argument (no
exec, no new processes: app/sandbox/seccomp.py) and refuses to go on if it cannot.

Started by tools/math_tool.py as `python -I math_runner.py MODULES FILTER` inside bubblewrap's
smallest jail under rlimits. It imports nothing of Whimbrel.
"""

import ast
import builtins
import io
import sys
import sysconfig

ALLOWED = set(sys.argv[1].split(","))
FILTER = bytes.fromhex(sys.argv[2]) if len(sys.argv) > 2 else b""
ARMED = False
READABLE = tuple(p + "/" for p in {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
                 if p and p != "/")
REFUSED_EVENTS = ("subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
                  "os.kill", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown",
                  "os.symlink", "os.link", "os.truncate", "os.putenv", "os.unsetenv",
                  "os.chdir", "os.startfile", "shutil.", "socket.", "ctypes.", "pty.",
                  "webbrowser.", "urllib.", "http.", "ftplib.", "smtplib.", "imaplib.", "poplib.", "telnetlib.",
                  "sqlite3.", "winreg.", "mmap.", "fcntl.", "resource.", "signal.", "code.__new__",
                  "function.__new__", "pickle.")


class Refused(Exception):
    pass


def install_filter(program):
    """Load the seccomp filter (struct sock_filter array) on this process; bubblewrap set no-new-privs."""
    import ctypes
    import resource

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(Program(len(program) // 8, program)), 0, 0):
        print("math: the sandbox's process filter could not be installed", file=sys.stderr)
        sys.exit(4)


def audit(event, args):
    if not ARMED:
        return
    if event == "open":
        path, mode = str(args[0]), str(args[1] or "r")
        writes = any(c in mode for c in "wax+") or (isinstance(args[2], int) and args[2] & 0o3)
        if writes or not path.startswith(READABLE):
            raise Refused(f"math may not open files ({path})")
    elif event in ("os.listdir", "os.scandir"):  # the import system lists Python's own folders
        if not (str(args[0]) + "/").startswith(READABLE):
            raise Refused(f"math may not list folders ({args[0]})")
    elif event.startswith(REFUSED_EVENTS):
        raise Refused(f"math may not do that ({event})")


def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level or name.split(".")[0] not in ALLOWED:
        raise ImportError(f"math may not import {name}")
    return real_import(name, globals, locals, fromlist, level)


SAFE = ("abs all any ascii bin bool bytes callable chr complex dict divmod enumerate filter float format "
        "frozenset hash hex int isinstance issubclass iter len list map max min next oct ord pow print range "
        "repr reversed round set slice sorted str sum tuple zip type ArithmeticError AssertionError "
        "ZeroDivisionError ValueError TypeError OverflowError IndexError KeyError StopIteration Exception "
        "True False None").split()
real_import = builtins.__import__


def main():
    global ARMED
    code = sys.stdin.read()
    tree = ast.parse(code, "<math>")
    if tree.body and isinstance(tree.body[-1], ast.Expr):  # like a notebook: the last value is shown
        last = tree.body[-1]
        tree.body[-1] = ast.Expr(ast.Call(ast.Name("__show__", ast.Load()), [last.value], []))
        ast.fix_missing_locations(tree)
    compiled = compile(tree, "<math>", "exec")
    safe = {name: getattr(builtins, name) for name in SAFE if hasattr(builtins, name)}
    safe["__import__"] = guarded_import

    def show(value):
        if value is not None:
            print(repr(value))

    namespace = {"__builtins__": safe, "__show__": show, "__name__": "__math__"}
    if FILTER:
        install_filter(FILTER)
    sys.addaudithook(audit)
    ARMED = True
    try:
        exec(compiled, namespace)
    except Refused as exc:
        print(f"Refused: {exc}", file=sys.stderr)
        sys.exit(3)
    except BaseException as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
