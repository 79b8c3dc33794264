"""This instance's claim on the workstreams it has open (leases in the store, app/storage/leases.py).

Two windows on one store must never write into the same workstream. `Ownership` takes a
workstream's lease when it opens, refreshes all held leases on a heartbeat, and gives them back on
close and quit. A workstream whose lease another live instance holds is opened read-only.
"""

from __future__ import annotations

import socket
from typing import Any

from app.storage.leases import HEARTBEAT_INTERVAL, Lease, Owner

READ_ONLY_POLL = 1.0  # seconds between checks of a read-only workstream for new messages


class HeldElsewhere(Exception):
    """The workstream is open in another live instance (its lease is `lease`)."""

    def __init__(self, lease: Lease) -> None:
        self.lease = lease
        super().__init__(f"this workstream is {where(lease)}")


def where(lease: Lease) -> str:
    """'open in another window (pid 4242) by bob', naming the host when it is not this one and who
    holds it when the lease says (app/storage/identity.py)."""
    host = "" if lease.owner.host == socket.gethostname() else f" on {lease.owner.host}"
    by = f" by {lease.who}" if lease.who else ""
    return f"open in another window (pid {lease.owner.pid}{host}){by}"


class Ownership:
    """The leases one running app holds; every call goes through the (async) store."""

    interval = HEARTBEAT_INTERVAL

    def __init__(self, store: Any, owner: Owner | None = None) -> None:
        self.store = store
        self.owner = owner or Owner.this_process()
        self.held: set[str] = set()

    async def claim(self, workstream_id: str) -> Lease | None:
        """Take the workstream's lease; None when this instance holds it now, else the live holder's."""
        holder = await self.store.take_lease(workstream_id, self.owner)
        if holder is None:
            self.held.add(workstream_id)
        return holder

    def free_now(self, lease: Lease | None) -> bool:
        """Whether a lease seen earlier would let this instance take over now (holder gone or stale),
        judged by the store's clock as of the lease's read (on PostgreSQL the server's: a machine whose
        own clock is off would otherwise offer a take-over the server refuses, or never offer one)."""
        return lease is None or lease.is_free_for(self.owner, lease.store_now())

    async def release(self, workstream_id: str) -> None:
        if workstream_id in self.held:
            self.held.discard(workstream_id)
            await self.store.release_leases(self.owner, [workstream_id])

    async def heartbeat(self) -> list[str]:
        """Refresh every held lease; return the ids another instance took over meanwhile."""
        lost = await self.store.refresh_leases(self.owner, sorted(self.held))
        self.held.difference_update(lost)
        return lost

    async def release_all(self) -> None:
        """Give back every lease this instance holds (on quit)."""
        self.held.clear()
        await self.store.release_leases(self.owner)
