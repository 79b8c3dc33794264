"""Why a write to the store failed, in words: the disk is full, a file-size limit was reached, the disk
is read-only, the team's PostgreSQL server did not answer. A turn whose reply could not be saved says so in the transcript (app/engine/unsaved.py)
instead of reporting an internal error, and never shows as saved what is not.

Its own module, free of the store's, like write_refused.py: the engine calls it on its own thread.
"""

from __future__ import annotations

import errno
import resource
import shutil
from pathlib import Path

from app.storage.reachability import StoreUnavailable

# SQLite's names for a write that the disk refused (sqlite3 errors carry them as `sqlite_errorname`).
SQLITE_WRITE_ERRORS = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN")
OS_WRITE_ERRORS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS, errno.EIO}
LOW_SPACE = 16 * 1024 * 1024  # bytes free under which the disk counts as full


def is_write_failure(error: BaseException) -> bool:
    """Whether `error` is the disk refusing a write, or the store's server not answering (not a bug in
    Whimbrel)."""
    if isinstance(error, StoreUnavailable):
        return True
    if isinstance(error, OSError):
        return error.errno in OS_WRITE_ERRORS
    return str(getattr(error, "sqlite_errorname", "")).startswith(SQLITE_WRITE_ERRORS)


def write_failure(error: BaseException, path: Path | str | None) -> str | None:
    """`error` in words with its likely cause, when it is a write the disk refused; None otherwise."""
    if not is_write_failure(error):
        return None
    if isinstance(error, StoreUnavailable):  # its words name the store (masked URL) and the driver's reason
        return f"the team store did not answer ({error})"
    where = f"writing to {path}" if path is not None else "writing to the conversation store"
    return f"{where} failed ({error}): {_cause(Path(path) if path is not None else None, error)}"


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"


def _cause(path: Path | None, error: BaseException) -> str:
    """The likeliest reason the disk refused, checked now: free space, then the file-size limit."""
    if path is not None:
        try:
            free = shutil.disk_usage(path.parent).free
        except OSError:
            free = None
        if free is not None and free < LOW_SPACE:
            return f"the disk is full ({_megabytes(free)} free)"
    limit, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if limit != resource.RLIM_INFINITY:
        return f"files are limited to {_megabytes(limit)} by the file-size limit (ulimit -f), and the store reached it"
    if "READONLY" in str(getattr(error, "sqlite_errorname", "")) or getattr(error, "errno", None) == errno.EROFS:
        return "the store's file or disk is read-only"
    return "the disk may be full or failing"
