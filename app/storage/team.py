"""The team view's data: every live instance on this store and the workstreams it has open.

A live instance is one whose lease rows (app/storage/leases.py) were refreshed within STALE_AFTER:
its name (`who`, app/storage/identity.py), host and pid, when it last beat (by the lease clock, so
the server's on PostgreSQL) and, per workstream, its title and state as the owner keeps it
("streaming" while a reply streams into a draft, app/storage/drafts.py; otherwise "idle").

`TeamMixin` is mixed into `Store` (which supplies `_reads` and `_lease_clock`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.storage.lease_rules import STALE_AFTER
from app.storage.leases import live_lease_ids


@dataclass(frozen=True)
class TeamWorkstream:
    """One workstream a live instance has open."""

    id: str
    name: str  # alias, title, or the id's first eight characters
    state: str  # the workstream's stored state: "streaming" or "idle"


@dataclass
class TeamInstance:
    """One running Whimbrel on this store, as its leases describe it."""

    instance_id: str
    who: str  # its name; "?" for a lease written before names were kept
    host: str
    pid: int
    seen_ago: float  # seconds since its newest heartbeat
    workstreams: list[TeamWorkstream] = field(default_factory=list)


_QUERY = """SELECT l.instance_id, l.pid, l.host, l.who, l.heartbeat_at, w.id, w.title, w.alias, w.state
FROM workstream_leases l JOIN workstreams w ON w.id = l.workstream_id
WHERE l.workstream_id IN ({live}) ORDER BY l.who, l.host, l.pid, w.updated_at DESC"""


class TeamMixin:
    def live_instances(self, *, stale_after: float = STALE_AFTER) -> list[TeamInstance]:
        """Every instance holding a live lease, with the workstreams it holds (newest activity first)."""
        with self._reads.connect() as conn:
            now = self._lease_clock(conn)
            live, params = live_lease_ids(now, stale_after)
            rows = conn.execute(_QUERY.format(live=live), params).all()
        instances: dict[str, TeamInstance] = {}
        for row in rows:
            instance = instances.get(row.instance_id)
            if instance is None:
                instance = instances[row.instance_id] = TeamInstance(
                    row.instance_id, row.who or "?", row.host, row.pid, max(0.0, now - row.heartbeat_at))
            instance.seen_ago = min(instance.seen_ago, max(0.0, now - row.heartbeat_at))
            name = row.alias or row.title or row.id[:8]
            instance.workstreams.append(TeamWorkstream(row.id, name, row.state or "idle"))
        return list(instances.values())
