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
