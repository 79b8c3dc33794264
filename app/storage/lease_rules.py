"""Who may take a workstream's lease: the owner, the lease and the rule, without the store.

app/storage/leases.py stores leases; this module is what it and the first frame's quick look at the
saved tabs (app/storage/peek.py) share, so both decide "held elsewhere" the same way.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable

HEARTBEAT_INTERVAL = 5.0  # seconds between refreshes of an owner's leases
STALE_AFTER = 3 * HEARTBEAT_INTERVAL  # a lease not refreshed for this long may be taken over


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid runs on this host (one we may not signal counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class Owner:
    """One running instance of the app: what a lease records about its holder."""

    instance_id: str
    pid: int
    host: str

    @classmethod
    def this_process(cls) -> Owner:
        return cls(uuid.uuid4().hex, os.getpid(), socket.gethostname())


@dataclass(frozen=True)
class Lease:
    """A workstream's lease as stored: who holds it and when it last said so."""

    workstream_id: str
    owner: Owner
    heartbeat_at: float
    who: str | None = None  # the holder's name (app/storage/identity.py); None on rows from before it was kept
    # The store's clock when the row was read (on PostgreSQL the server's), and this process's monotonic
    # clock then: `store_now()` goes on from there, so a machine whose own clock is off still judges the
    # heartbeat's age as the server does. None for a lease built without reading a clock.
    read_at: float | None = field(default=None, compare=False)
    read_monotonic: float = field(default_factory=time.monotonic, compare=False, repr=False)

    def store_now(self) -> float:
        """The store's clock now, as seen from the read: never this machine's wall clock, unless the
        lease was made without one (then `time.time()`, as before)."""
        if self.read_at is None:
            return time.time()
        return self.read_at + (time.monotonic() - self.read_monotonic)

    def is_free_for(self, claimant: Owner, now: float, *, stale_after: float = STALE_AFTER,
                    alive: Callable[[int], bool] = pid_alive) -> bool:
        """True when `claimant` may take it: it is the holder, or the holder is stale or gone."""
        if self.owner.instance_id == claimant.instance_id:
            return True
        if now - self.heartbeat_at > stale_after:
            return True
        return self.owner.host == claimant.host and not alive(self.owner.pid)
