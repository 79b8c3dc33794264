"""The error log's redaction: keys and tokens never reach whimbrel.log."""

from __future__ import annotations

import logging

from app.runtime import error_log


def test_known_secrets_and_credential_shapes_are_masked():
    redactor = error_log.Redactor(secrets=["hunter2-long-secret"])
    text = redactor.redact("key sk-abcdef0123456789 header Authorization: Bearer eyJhbGciOi.x.y "
                           "api_key=plain123 password: 'pw-9999' pass hunter2-long-secret done")
    assert "sk-abcdef" not in text and "eyJhbG" not in text and "plain123" not in text
    assert "pw-9999" not in text and "hunter2" not in text
    assert "api_key=[redacted]" in text and text.endswith("pass [redacted] done")


def test_install_writes_tracebacks_to_the_data_dir(tmp_path):
    path = error_log.install(tmp_path / "data", secrets=["sk-live-abcdefgh12345"])
    try:
        raise RuntimeError("token sk-live-abcdefgh12345 rejected")
    except RuntimeError as exc:
        said = error_log.internal_failure("Saving the layout", exc)
    assert said == f"Saving the layout failed because of an internal error; the details are in {path}."
    written = path.read_text()
    assert "Traceback" in written and "RuntimeError" in written and "sk-live" not in written


def test_an_unwritable_data_dir_logs_nowhere_rather_than_onto_the_terminal(tmp_path, capsys):
    blocker = tmp_path / "data"
    blocker.write_text("a file, not a directory")
    assert error_log.install(blocker) is None
    error_log.internal_failure("Saving the layout", ValueError("x"))
    assert capsys.readouterr().err == ""
    logging.getLogger(error_log.LOGGER).handlers.clear()


def test_after_the_data_dir_is_deleted_the_log_named_exists_and_the_user_is_told(tmp_path, capsys):
    """A running app whose data dir was deleted (rm -rf, a cleaner): the next internal failure is logged
    in a log made again where it was, and the sentence pointing to it says what had happened."""
    import shutil

    data = tmp_path / "data"
    path = error_log.install(data)
    try:
        error_log.internal_failure("Saving the layout", ValueError("first"))
        assert path.exists()
        shutil.rmtree(data)
        said = error_log.internal_failure("Naming the workstream", ValueError("second failure"))
        assert path.exists() and "second failure" in path.read_text(), said
        assert path.stat().st_mode & 0o777 == 0o600 and data.stat().st_mode & 0o777 == 0o700
        assert said == (f"Naming the workstream failed because of an internal error; the details are in {path} "
                        f"(the data directory {data} had been deleted: it was made again for this log).")
        again = error_log.internal_failure("Naming the workstream", ValueError("third"))
        assert again.endswith(f"the details are in {path}."), "said once"
        assert capsys.readouterr().err == ""
    finally:
        for handler in logging.getLogger(error_log.LOGGER).handlers:
            handler.close()
        logging.getLogger(error_log.LOGGER).handlers.clear()
