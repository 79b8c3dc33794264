"""Credentials in text, found and replaced by `[redacted]`: the one redaction every kept text goes through
(the audit log's arguments, reasons and decided-by, its exports, the error log, a project file's review).

What it knows: PEM private-key blocks; a service-account JSON's `private_key`; AWS access key ids
(AKIA…, ASIA…) and `aws_secret_access_key` / `AWS_SECRET_ACCESS_KEY=`; Google API keys (AIza…); Azure
connection strings (`AccountKey=`, `SharedAccessKey=`, `SharedAccessSignature=`, a SAS `sig=`); Slack
tokens (xox[abposr]-…, xapp-…) and webhook URLs; Stripe keys (sk_live_, rk_live_, …); GitHub tokens
(ghp_…, github_pat_…); OpenAI and Anthropic keys (sk-…, sk-ant-…); JSON Web Tokens; `Bearer` and
`Basic` credentials; `password=`, `--password …`, any `NAME=value` whose name says key, token, secret,
password or credential; and the password of a URL's `user:pass@`. A name kept before the value says
what was there (`AWS_SECRET_ACCESS_KEY=[redacted]`).

Redaction is for what is kept and shown; what a tool runs and what the model reads stay unchanged.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[redacted]"

# A name that says its value is secret (in key=value text, JSON keys and argument names).
_SECRET_WORDS = (r"api[_-]?key|apikey|access[_-]?key|secret|token|passw(?:or)?d|passphrase|pwd|credentials?"
                 r"|private[_-]?key|client[_-]?secret|auth[_-]?key|accountkey|sharedaccesskey|session[_-]?key")
SECRET_NAME = re.compile(rf"(?i)({_SECRET_WORDS}|authorization|cookie)")
_QUOTED_OR_BARE = r"(?:\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\s\"'&;,}<>|]+)"

# (pattern, keep): `keep` names the group kept before [redacted] (0: nothing kept).
_PATTERNS: list[tuple[re.Pattern[str], int]] = [
    # PEM private keys, whole blocks (an unterminated one to the end of the text)
    (re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
                r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"), 0),
    # the same key inside JSON, with its newlines escaped: "private_key": "-----BEGIN…"
    (re.compile(r"(?i)(\"private_key\"\s*:\s*)\"(?:[^\"\\]|\\.)*\""), 1),
    # URLs carrying credentials: scheme://user:password@host, Slack webhooks
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s/:@\"']+:)[^\s@/\"']+(?=@)"), 1),
    (re.compile(r"(?i)(https://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_\-]+"), 1),
    # Azure connection strings and SAS tokens
    (re.compile(r"(?i)\b((?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*)[^;\s\"'&]+"), 1),
    (re.compile(r"(?i)([?&]sig=)[^&\s\"']+"), 1),
    # key=value, key: value and "key": "value" whose name says secret (AWS_SECRET_ACCESS_KEY=, password=, …);
    # the match starts at the secret word, so the rest of the name before it stays as it is
    (re.compile(rf"(?i)((?:{_SECRET_WORDS})[A-Za-z0-9_.\-]*[\"']?\s*[=:]\s*)"
                rf"(?![\"']?\[redacted\]){_QUOTED_OR_BARE}"), 1),
    # command-line options: --password X, --password=X, --token X, --api-key X, --client-secret X
    (re.compile(rf"(?i)(\s--?(?:[a-z0-9]+-)*(?:{_SECRET_WORDS})(?:=|\s+))(?![\"']?\[redacted\])(?!-){_QUOTED_OR_BARE}"), 1),
    # Authorization schemes
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/\-]+=*"), 1),
    (re.compile(r"(?i)(\bbasic\s+)[A-Za-z0-9+/]{12,}={0,2}"), 1),
    # tokens recognised by their shape alone, in one pass: AWS key ids, Google API keys, Slack, Stripe,
    # GitHub, GitLab, OpenAI and Anthropic (sk-…, sk-ant-…) keys, JSON Web Tokens
    (re.compile(r"\b(?:(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[0-9A-Z]{16}\b"
                r"|AIza[0-9A-Za-z_\-]{35}"
                r"|xox[abposre]-[A-Za-z0-9\-]{8,}|xapp-[0-9A-Za-z\-]{10,}"
                r"|(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{8,}|whsec_[0-9A-Za-z]{16,}"
                r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{20,}"
                r"|(?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}"
                r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})"), 0),
]


# What every pattern above needs somewhere, lower-cased: text holding none of these (most text) is
# returned as it is after a few substring checks. A pattern added above adds its anchor here.
_ANCHORS = ("key", "secret", "token", "passw", "passphrase", "pwd", "credential", "://", "sharedaccess", "sig=",
            "bearer", "basic", "akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca",
            "aiza", "xox", "xapp-", "_live_", "_test_", "whsec_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
            "glpat-", "k-", "eyj")


def redact(text: str) -> str:
    """`text` with every credential it holds replaced by [redacted] (names kept, values gone)."""
    if not text:
        return text
    lowered = text.lower()
    if not any(anchor in lowered for anchor in _ANCHORS):
        return text
    for pattern, keep in _PATTERNS:
        text = pattern.sub(lambda m, k=keep: (m.group(k) if k else "") + REDACTED, text)
    return text


def redact_value(value: Any) -> Any:
    """A JSON-like value with secret-named keys' strings and credential-shaped text redacted."""
    if isinstance(value, dict):
        return {k: REDACTED if isinstance(k, str) and SECRET_NAME.search(k) and isinstance(v, str) and v
                else redact_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v) for v in value]
    if isinstance(value, str):
        return redact(value)
    return value


def mask(value: str) -> str:
    """A value to show a user who reviews it: its start when it looks like a credential, so they can tell
    which one it is (`sk-p…[redacted]`), else the value as it is."""
    cleaned = redact(value)
    if cleaned == value:
        return value
    return (value[:4] + "…" + REDACTED) if len(value) > 12 and cleaned.startswith(REDACTED) else cleaned


def secret_named(name: str) -> bool:
    """Does `name` (an environment variable, a header, an argument) say its value is secret?"""
    return bool(SECRET_NAME.search(name))
