"""No planted credential survives into what Whimbrel keeps: the audit rows in the real SQLite store
(arguments, decided-by, risk), `whimbrel audit --json` written to a file, and the error log. The calls
come from a scripted model through a headless `whimbrel run`, the path a real model's calls take."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from app.runtime import error_log
from app.vocabulary.secrets import redact
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.headless.helpers import ROOT, model_flags, run_whimbrel
from tests.storage.test_private_files import restore_logger  # noqa: F401 - a fixture

SECRETS = {
    "aws key id": "AKIAQWERTYUIOPASDFGH",
    "aws secret": "wJalrXUtnFEMIK7MDENGbPxRfiCYzzSECRET1",
    "gcp private key": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCgcpSECRET",
    "gcp api key": "AIzaSyD-abcdefghijklmnopqrstuvwxyz12345",
    "azure account key": "azAccountKeyValue+SECRET/123==",
    "azure sas": "sasSignatureValue%2BSECRET",
    "slack token": "xoxb-1234567890-abcdefSECRET",
    "slack webhook": "T00000000/B00000000/XXXXslackHOOKsecret",
    "stripe": "sk_live_51abcdefSECRETstripe",
    "stripe restricted": "rk_live_51abcdefSECRETstripe",
    "github": "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "openai": "sk-proj-SECRETopenaiKEY1234567890",
    "anthropic": "sk-ant-api03-SECRETanthropic123456",
    "bearer": "opaqueBearerSECRET123456",
    "password option": "hunter2SECRETpw",
    "password assignment": "correcthorseSECRET",
    "url password": "s3cr3tUrlPassSECRET",
    "pem body": "MIIEpAIBAAKCAQEA7pemSECRETbody",
}
S = SECRETS
COMMANDS = [
    f"AWS_ACCESS_KEY_ID={S['aws key id']} AWS_SECRET_ACCESS_KEY={S['aws secret']} aws s3 ls",
    "printf '%s' '{\"type\": \"service_account\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n"
    f"{S['gcp private key']}\\n-----END PRIVATE KEY-----\\n\"}}' > sa.json",
    f"curl 'https://maps.googleapis.com/maps/api/geocode/json?key={S['gcp api key']}'",
    "az storage blob list --connection-string 'DefaultEndpointsProtocol=https;AccountName=a;"
    f"AccountKey={S['azure account key']};EndpointSuffix=core.windows.net'",
    f"curl 'https://a.blob.core.windows.net/c/f?sv=2020-08-04&sig={S['azure sas']}'",
    f"curl -H 'Authorization: Bearer {S['slack token']}' https://hooks.slack.com/services/{S['slack webhook']}",
    f"stripe --api-key {S['stripe']} charges list && stripe -k {S['stripe restricted']} refunds list",
    f"GITHUB_TOKEN={S['github']} gh pr list",
    f"OPENAI_API_KEY={S['openai']} ANTHROPIC_API_KEY={S['anthropic']} python3 x.py",
    f"curl -H 'Authorization: Bearer {S['bearer']}' https://api.example.com",
    f"mysql -u root --password {S['password option']} app",
    f"DB_PASSWORD={S['password assignment']} ./migrate",
    f"psql postgres://admin:{S['url password']}@db.internal/app",
    f"printf '-----BEGIN RSA PRIVATE KEY-----\\n{S['pem body']}\\n-----END RSA PRIVATE KEY-----\\n' > id_rsa",
]


def leaked(text: str) -> list[str]:
    return [name for name, value in SECRETS.items() if value in text]


def test_every_planted_secret_is_redacted_and_plain_text_is_kept():
    for command in COMMANDS:
        assert leaked(redact(command)) == [], command
    for shaped in ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz", "whsec_abcdefghijklmnop1234",
                   "glpat-abcdefghijklmnopqrst", "github_pat_11ABCDEFG0123456789abcdef", "xapp-1-A0123-456-abcdef",
                   "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"):
        assert redact(f"x {shaped} y") == "x [redacted] y", shaped
    for harmless in ("git status", "ls --token-file x", "echo hello world", "npm run test:unit",
                     "curl https://example.com/a?b=c", "python3 -m pytest -q tests/storage"):
        assert redact(harmless) == harmless


def test_audit_rows_and_their_export_keep_no_secret(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    calls = [("bash", json.dumps({"command": command}), f"b{i}") for i, command in enumerate(COMMANDS)]
    calls.append(("bash", json.dumps({"command": f"echo token={S['github']}"}), "allowed"))
    calls.append(("write_file", json.dumps({"path": ".env", "content": f"AWS_SECRET_ACCESS_KEY={S['aws secret']}\n"
                                            f"STRIPE_KEY={S['stripe']}\n"}), "w1"))
    fake_openai.queue(ToolCallReply(calls), TextReply("done"))
    ran = run_whimbrel(workspace, "--allow", "bash(echo *)", "--output", "json", *model_flags(fake_openai.base_url),
                       "go")
    assert ran.returncode in (0, 3), ran.stderr
    data_dir = Path(os.environ["WHIMBREL_DATA_DIR"])
    with sqlite3.connect(data_dir / "whimbrel.db") as db:  # the raw rows, not the reading code's view
        rows = db.execute("SELECT * FROM audit_log").fetchall()
    assert len(rows) == len(calls)
    kept = "\n".join(" ".join(str(v) for v in row) for row in rows)
    assert "[redacted]" in kept and leaked(kept) == []
    assert "AWS_SECRET_ACCESS_KEY=[redacted]" in kept

    export = tmp_path / "audit.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with export.open("w") as out:
        subprocess.run([sys.executable, "-m", "app.cli", "audit", "--json", "--since", "1h", "--workdir",
                        str(workspace)], stdout=out, env=env, check=True, timeout=60, stdin=subprocess.DEVNULL)
    exported = export.read_text()
    assert len(exported.splitlines()) == len(calls) and leaked(exported) == []
    for line in exported.splitlines():
        assert isinstance(json.loads(line)["arguments"], dict)  # still JSON after redaction
    log = data_dir / error_log.FILE_NAME
    assert not log.exists() or leaked(log.read_text()) == []


def test_the_error_log_keeps_no_secret(tmp_path, restore_logger):
    path = error_log.install(tmp_path / "data")
    logger = logging.getLogger(error_log.LOGGER)
    for command in COMMANDS:
        logger.warning("the command %s failed", command)
    try:
        raise RuntimeError(f"connect failed: postgres://admin:{S['url password']}@db/app key={S['openai']}")
    except RuntimeError as error:
        error_log.internal_failure("Connecting", error)
    text = path.read_text()
    assert "Connecting failed" in text and "RuntimeError" in text and leaked(text) == []


def test_a_markdown_export_keeps_no_secret_in_arguments_or_results():
    from app.engine.export import export_markdown
    from app.vocabulary.messages import Message, ToolCall

    messages = [Message("user", "deploy it")]
    for i, command in enumerate(COMMANDS):
        call = ToolCall(f"c{i}", "bash", json.dumps({"command": command, "env": {"API_TOKEN": S["github"]}}))
        messages += [Message("assistant", "", tool_calls=[call]),
                     Message("tool", f"ran: {command}\nAWS_SECRET_ACCESS_KEY={S['aws secret']}", tool_call_id=f"c{i}",
                             name="bash")]
    text = export_markdown("deploy", messages)
    assert "**Tool call** `bash`" in text and "[redacted]" in text and leaked(text) == []
