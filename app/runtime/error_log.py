"""The error log: internal failures go to `<data dir>/whimbrel.log` with their tracebacks, secrets
redacted, and the user gets a sentence saying what failed instead of Python's text.

    log_path = error_log.install(data_dir, secrets=[api_key])   # once, at startup
    app.notify(error_log.internal_failure("Naming the workstream", exc))

Other modules log through the standard `logging.getLogger("whimbrel")`; nothing else imports this.
"""

from __future__ import annotations

import logging
import os
import logging.handlers
from pathlib import Path
from typing import Iterable

from app.storage.private import open_private, private_dir
from app.vocabulary.secrets import redact

LOGGER = "whimbrel"
FILE_NAME = "whimbrel.log"
MAX_BYTES, BACKUPS = 1_000_000, 2
REDACTED = "[redacted]"


class Redactor(logging.Filter):
    """Replaces known secrets and anything shaped like a credential in each record's final text."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return redact(text)  # anything shaped like a credential (app/vocabulary/secrets.py)

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
            record.exc_info, record.exc_text = None, None
        record.msg, record.args = self.redact(text), ()
        return True


class PrivateLogHandler(logging.handlers.RotatingFileHandler):
    """The rotating log, each file created 0600 (the user's alone), whatever the umask.

    A log deleted while the app runs (its data dir removed, say) would take every later record into
    the deleted file and leave the path the user is pointed to missing: the file is made again, its
    directory too (`remade` then names the directory, until `internal_failure` has said so)."""

    remade: Path | None = None

    def _open(self):
        path = Path(self.baseFilename)
        if not path.parent.is_dir():
            private_dir(path.parent)
            self.remade = path.parent
        return os.fdopen(open_private(path), "a", encoding=self.encoding, errors=self.errors)

    def emit(self, record: logging.LogRecord) -> None:
        if self.stream is not None and not _is_open_as(self.stream, self.baseFilename):
            self.stream.close()
            self.stream = None  # reopened at the path by the emit below
        super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """A record that cannot be written (disk full, directory not writable) is dropped: never
        Python's report of it on stderr, which is the terminal the window draws on."""


def _is_open_as(stream, path: str) -> bool:
    """Whether the open `stream` is still the file at `path` (not deleted or replaced)."""
    try:
        opened, named = os.fstat(stream.fileno()), os.stat(path)
    except (OSError, ValueError):
        return False
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


def install(data_dir: Path, secrets: Iterable[str] = ()) -> Path | None:
    """Send the "whimbrel" logger to `<data_dir>/whimbrel.log` (rotated at 1 MB); returns the path,
    or None when the directory cannot be written (errors are then only summarised on screen)."""
    logger = logging.getLogger(LOGGER)
    path = Path(data_dir) / FILE_NAME
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    logger.addHandler(logging.NullHandler())
    logger.propagate = False  # never onto the terminal Textual draws on, even without a file
    try:
        private_dir(path.parent)
        handler = PrivateLogHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True)
    except OSError:
        return None
    handler.addFilter(Redactor(secrets))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return path


def _handler() -> logging.FileHandler | None:
    for handler in logging.getLogger(LOGGER).handlers:
        if isinstance(handler, logging.FileHandler):
            return handler
    return None


def log_path() -> Path | None:
    """Where `install` sends the log, if it did."""
    handler = _handler()
    return Path(handler.baseFilename) if handler is not None else None


def internal_failure(what: str, error: BaseException) -> str:
    """Log `error` with its traceback and return what the user is told: `what` failed, and where
    the details are (only a log that exists is named). `what` is a phrase such as "Naming the workstream".
    A write the disk refused (full, a file-size limit, read-only) or a team store that did not answer is
    no internal error: the user is told that, and why."""
    from app.storage.write_failed import write_failure

    refused = write_failure(error, None)
    if refused is not None:
        logging.getLogger(LOGGER).warning("%s failed: %s", what, refused)
        return f"{what} failed: {refused}."
    logging.getLogger(LOGGER).error("%s failed", what, exc_info=(type(error), error, error.__traceback__))
    handler, where = _handler(), log_path()
    details = f"; the details are in {where}" if where is not None and where.exists() else ""
    remade = getattr(handler, "remade", None)
    if details and remade is not None:
        handler.remade = None  # said once
        details += f" (the data directory {remade} had been deleted: it was made again for this log)"
    return f"{what} failed because of an internal error{details}."


def in_words(what: str, error: BaseException) -> str:
    """What the user reads about `error`: a ToolError's own message (those are written for people,
    MCP failures included), anything else logged as an internal failure of `what`."""
    from tools.errors import ToolError

    return str(error) if isinstance(error, ToolError) else internal_failure(what, error)
