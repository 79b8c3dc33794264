"""A real PostgreSQL server for the tests: Debian's binaries, a data dir of its own, stopped at the end.

`PgServer.start()` runs initdb into a new temporary directory and starts the server listening on a
unix socket in that directory only (no TCP port, so it can never clash with, or be mistaken for, a
server it did not start); `stop()` stops it (`pg_ctl stop -m immediate`) and removes the directory.
`database()` creates a fresh empty database and returns its URL, so each test starts clean while a
worker starts the server once.

PostgreSQL refuses to run as root. Run as root (the CI), initdb and the server run as the
`postgres` user Debian's package creates (else `nobody`) through `runuser`; the directory is
theirs. Run as anyone else, they run as that user.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

PORT = 5432  # only names the socket file, in the server's own directory: no TCP port is opened
SUPERUSER = "whimbrel"


def bin_dir() -> Path | None:
    """Where Debian keeps the newest PostgreSQL's programs, None when none is installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(found[-1]).parent if found else None


def _server_user() -> str | None:
    """Who runs the server: None for this process's user, else the unprivileged account to switch to."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root with neither a 'postgres' nor a 'nobody' user to run PostgreSQL as")


class PgServer:
    """One PostgreSQL server this process started; `stop()` ends it."""

    def __init__(self, bin_path: Path) -> None:
        self.bin = bin_path
        self.user = _server_user()
        self.root = Path(tempfile.mkdtemp(prefix="whimbrel-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "socket"
        self.log = self.root / "server.log"
        self.started = False

    def _run(self, *argv: str) -> subprocess.CompletedProcess:
        command = [str(self.bin / argv[0]), *argv[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=self.root)

    def _check(self, *argv: str) -> None:
        done = self._run(*argv)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr.strip()}\n{log}")

    def start(self) -> "PgServer":
        self.socket_dir.mkdir()
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chmod(self.root, 0o755)
            for path in (self.root, self.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        self._check("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                    "--locale=C.UTF-8", "--no-sync")
        self._check("pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                    "-o", self._options())
        self.started = True
        return self

    def _options(self) -> str:
        return (f"-k {self.socket_dir} -p {PORT} -c listen_addresses='' -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")

    def restart(self) -> None:
        """`pg_ctl restart -m fast`: every client is disconnected, the server comes back on the same
        socket. Only this object's own running server can be restarted (its own data dir)."""
        if not self.started or not (self.data / "postmaster.pid").exists():
            raise RuntimeError("restart() is for a server this object started and still runs")
        self._check("pg_ctl", "restart", "-D", str(self.data), "-l", str(self.log), "-m", "fast", "-w", "-t", "60",
                    "-o", self._options())

    def halt(self) -> None:
        """`pg_ctl stop -m fast`, keeping the data dir: the server is gone (every client cut, new ones
        refused) until `resume()`. Only this object's own running server."""
        if not self.started or not (self.data / "postmaster.pid").exists():
            raise RuntimeError("halt() is for a server this object started and still runs")
        self._check("pg_ctl", "stop", "-D", str(self.data), "-m", "fast", "-w", "-t", "60")

    def resume(self) -> None:
        """Start again, on the same socket and data dir, a server `halt()` stopped."""
        if not self.started or (self.data / "postmaster.pid").exists():
            raise RuntimeError("resume() is for this object's own server, halted")
        self._check("pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                    "-o", self._options())

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}&port={PORT}"

    def database(self) -> str:
        """A new empty database on this server; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(host=str(self.socket_dir), port=PORT, user=SUPERUSER, dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            if self.started:
                self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w", "-t", "60")
                self.started = False
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
