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
    """The rotating log, each file created 0600 (the user's alone), whatever the umask."""

    def _open(self):
        return os.fdopen(open_private(Path(self.baseFilename)), "a", encoding=self.encoding, errors=self.errors)


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


def log_path() -> Path | None:
    """Where `install` sends the log, if it did."""
    for handler in logging.getLogger(LOGGER).handlers:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None


def internal_failure(what: str, error: BaseException) -> str:
    """Log `error` with its traceback and return what the user is told: `what` failed, and where
    the details are. `what` is a phrase such as "Naming the workstream"."""
    logging.getLogger(LOGGER).error("%s failed", what, exc_info=(type(error), error, error.__traceback__))
    where = log_path()
    details = f"; the details are in {where}" if where else ""
    return f"{what} failed because of an internal error{details}."


def in_words(what: str, error: BaseException) -> str:
    """What the user reads about `error`: a ToolError's own message (those are written for people,
    MCP failures included), anything else logged as an internal failure of `what`."""
    from tools.errors import ToolError

    return str(error) if isinstance(error, ToolError) else internal_failure(what, error)
