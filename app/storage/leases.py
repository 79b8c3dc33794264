"""Workstream leases: which running Whimbrel has a workstream open, so only that one writes to it.

Two windows may share one store, or (on PostgreSQL) several machines. On PostgreSQL heartbeats are
written and judged by the server's clock (`_lease_clock`), so machines whose clocks disagree still
agree on who is stale; "the process is gone" is only decided on the holder's own host. Each running app is an `Owner` (a random instance id, its pid
and host). Opening a workstream takes its lease; the owner refreshes the heartbeat of every lease
it holds every HEARTBEAT_INTERVAL seconds and releases them on close and quit. A lease whose
heartbeat is older than STALE_AFTER, or whose process is gone (same host, pid not running), is
free: a SIGKILLed or frozen owner never blocks a workstream for good.

`LeaseMixin` is mixed into `Store` (which supplies `path`, `_engine`, `_reads` and `_clock`). Every
decision is made inside one write transaction, so two instances can never both take a lease.
Once `writer` is set (the app's Owner), every write into a workstream's messages checks, inside its
own write transaction, that no other instance holds the workstream's lease: a window that was
stale (suspended, say) when another took the workstream over cannot write into it even once more.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Callable, Iterable

from app.storage.identity import who
from app.storage.engine import Connection, Engine, Row, begin_immediate, connect_raw, marks
from app.storage.lease_rules import HEARTBEAT_INTERVAL, STALE_AFTER, Lease, Owner, pid_alive
from app.storage.write_refused import WriteRefused

# The owner, the lease and the rule live in lease_rules.py (no store); they are used from here too.
__all__ = ["HEARTBEAT_INTERVAL", "STALE_AFTER", "Lease", "Owner", "pid_alive", "LeaseMixin", "live_lease_ids"]

_SELECT = "SELECT workstream_id, instance_id, pid, host, heartbeat_at, who FROM workstream_leases"


def _lease(row: Row, now: float | None = None) -> Lease:
    """The row as a Lease; `now` is the lease clock's time of the read (Lease.store_now goes on from it)."""
    return Lease(row.workstream_id, Owner(row.instance_id, row.pid, row.host), row.heartbeat_at, row.who, now)


def live_lease_ids(now: float, stale_after: float = STALE_AFTER) -> tuple[str, tuple[float]]:
    """A subquery (SQL, parameters) of the workstreams whose lease was refreshed within `stale_after` seconds."""
    return "SELECT workstream_id FROM workstream_leases WHERE heartbeat_at >= ?", (now - stale_after,)


class LeaseMixin:
    _engine: Engine
    _reads: Engine
    _clock: Callable[[], float]
    path: Path | None  # None on PostgreSQL
    writer: Owner | None = None  # set by the app: writes need its lease (or no lease at all)
    _server_clock: bool = False  # PostgreSQL with no clock given: leases by the server's clock
    _heartbeat: sqlite3.Connection | None = None  # refresh_leases' own connection, once used

    def _lease_clock(self, conn: Connection) -> float:
        """The time leases are written and judged by. On PostgreSQL the server's clock, one for every
        machine (theirs may disagree by seconds, more than a heartbeat's grace); on SQLite, and where a
        test set the store's clock, the store's clock."""
        if self._server_clock:
            return float(conn.execute("SELECT extract(epoch FROM clock_timestamp())").scalar())
        return self._clock()

    def _check_writer(self, conn: Connection, workstream_id: str) -> None:
        """Inside a write transaction: WriteRefused when an instance other than `writer` holds the lease."""
        if self.writer is None:
            return
        row = conn.execute(f"{_SELECT} WHERE workstream_id = ?", (workstream_id,)).first()
        if row is not None and row.instance_id != self.writer.instance_id:
            raise WriteRefused(workstream_id, _lease(row))

    def take_lease(self, workstream_id: str, owner: Owner, *,
                   stale_after: float = STALE_AFTER) -> Lease | None:
        """Take (or keep) the workstream's lease for `owner`.

        Returns None when `owner` holds it now; otherwise the live lease of whoever does.
        Raises LookupError for an unknown workstream.
        """
        with self._engine.begin() as conn:
            now = self._lease_clock(conn)
            row = conn.execute(f"{_SELECT} WHERE workstream_id = ?", (workstream_id,)).first()
            current = _lease(row, now) if row else None
            if current is not None and not current.is_free_for(owner, now, stale_after=stale_after):
                return current
            mine = {"instance_id": owner.instance_id, "pid": owner.pid, "host": owner.host, "heartbeat_at": now,
                    "who": who()}
            if current is None:
                try:
                    conn.insert("workstream_leases", {"workstream_id": workstream_id, "taken_at": now, **mine})
                except sqlite3.IntegrityError:
                    raise LookupError(f"no workstream with id '{workstream_id}'") from None
            else:
                taken = {} if current.owner.instance_id == owner.instance_id else {"taken_at": now}
                values = {**mine, **taken}
                assignments = ", ".join(f"{column} = :{column}" for column in values)
                conn.execute(f"UPDATE workstream_leases SET {assignments} WHERE workstream_id = :workstream_id",
                             {**values, "workstream_id": workstream_id})
        return None

    def refresh_leases(self, owner: Owner, workstream_ids: Iterable[str]) -> list[str]:
        """Bump the heartbeat of `owner`'s leases on these workstreams; return the ids it no
        longer holds (another instance took them over while this one was stale).

        It runs every HEARTBEAT_INTERVAL seconds for the app's whole life, idle or not, so it goes
        through the heartbeat's own sqlite3 connection (`_heartbeat_connection`): through the
        engine, an idle app's beat cost 3-4 times the CPU (1.2 ms against 0.3 ms)."""
        ids = list(workstream_ids)
        if not ids:
            return []
        if self.path is None:  # PostgreSQL: the engine's pool (no file to hold a connection on)
            with self._engine.begin() as conn:
                return self._beat(conn.execute, owner, ids, self._lease_clock(conn))
        conn = self._heartbeat_connection()
        begin_immediate(conn.execute)
        try:
            gone = self._beat(conn.execute, owner, ids, self._clock())
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return gone

    def _beat(self, execute: Callable[..., Any], owner: Owner, ids: list[str], now: float) -> list[str]:
        """In a write transaction: the heartbeat's statements; the ids `owner` no longer holds."""
        execute(f"UPDATE workstream_leases SET heartbeat_at = ? WHERE instance_id = ? AND workstream_id IN ({marks(ids)})",
                (now, owner.instance_id, *ids))
        held = {row[0] for row in execute(
            f"SELECT workstream_id FROM workstream_leases WHERE instance_id = ? AND workstream_id IN ({marks(ids)})",
            (owner.instance_id, *ids))}
        return [i for i in ids if i not in held]

    def _heartbeat_connection(self) -> sqlite3.Connection:
        """The heartbeat's connection: opened on first use with the engine's pragmas (autocommit at the
        driver, so BEGIN IMMEDIATE is explicit), closed with the store (`close_heartbeat`)."""
        if self._heartbeat is None:
            self._heartbeat = connect_raw(self.path)
        return self._heartbeat

    def close_heartbeat(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.close()
            self._heartbeat = None

    def release_leases(self, owner: Owner, workstream_ids: Iterable[str] | None = None) -> None:
        """Give up `owner`'s leases on these workstreams (all of them when None)."""
        sql, params = "DELETE FROM workstream_leases WHERE instance_id = ?", [owner.instance_id]
        if workstream_ids is not None:
            ids = list(workstream_ids)
            sql += f" AND workstream_id IN ({marks(ids)})"
            params += ids
        with self._engine.begin() as conn:
            conn.execute(sql, params)

    def live_leases(self, *, stale_after: float = STALE_AFTER) -> list[Lease]:
        """Every lease refreshed within `stale_after` seconds: the workstreams open somewhere now."""
        with self._reads.connect() as conn:
            now = self._lease_clock(conn)
            live, params = live_lease_ids(now, stale_after)
            return [_lease(row, now) for row in conn.execute(f"{_SELECT} WHERE workstream_id IN ({live})", params)]

    def lease(self, workstream_id: str) -> Lease | None:
        """The workstream's lease row (held, stale or gone alike), or None when nobody took it; it carries
        the lease clock's time of the read, so a window judges its age by the server's clock, not its own."""
        with self._reads.connect() as conn:
            row = conn.execute(f"{_SELECT} WHERE workstream_id = ?", (workstream_id,)).first()
            now = self._lease_clock(conn) if row else None
        return _lease(row, now) if row else None
