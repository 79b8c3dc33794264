"""The error of a write into a workstream that another window took over (app/storage/leases.py).

Its own module, free of the store's, so the engine and AsyncStore can catch it without importing the
store on their thread.
"""

from __future__ import annotations

from typing import Any


class WriteRefused(RuntimeError):
    """A write into a workstream whose lease another instance holds now (it took the workstream over)."""

    def __init__(self, workstream_id: str, lease: Any) -> None:
        self.workstream_id = workstream_id
        self.lease = lease  # app.storage.leases.Lease: who holds it now
        super().__init__(f"this workstream was taken over by another window (pid {lease.owner.pid}); "
                         "nothing more is saved from this one, which shows it read-only now")

    @property
    def not_saved(self) -> str:
        """What the user reads when a command's or setting's write was refused (not a turn's: the turn
        says that it stopped)."""
        return f"Not saved: {self}."
