"""Who wrote what: each message row and audit row records the instance (user@host, or [team] name)."""

from __future__ import annotations

import getpass
import socket
from types import SimpleNamespace

import pytest

from app.permissions import audit
from app.storage import identity
from app.storage.location import choose_store
from app.vocabulary.messages import Message, ToolCall
from tests.pg_fixtures import stored_rows


@pytest.fixture(autouse=True)
def _default_name():
    identity.set_name(None)
    yield
    identity.set_name(None)


def test_by_default_user_at_host() -> None:
    assert identity.who() == f"{getpass.getuser()}@{socket.gethostname()}"


def test_messages_tool_calls_and_audit_rows_record_who(store, tmp_path) -> None:
    choose_store(tmp_path, SimpleNamespace(team_name="  alice on the build box ", database_url=None))
    ws = store.create_workstream()
    store.add_message(ws, Message(role="user", content="run the tests"))
    store.add_message(ws, Message(role="assistant", content="", tool_calls=[ToolCall("c1", "bash", "{}")]))
    audit.append(store.engine, audit.AuditRow(ws, "c1", "bash", "{}", "approved", "user", "ask", "low", "none", "done"))
    identity.set_name(None)
    store.add_message(ws, Message(role="user", content="from the default name"))
    assert stored_rows(store, "SELECT role, who FROM messages ORDER BY seq") == [
        ("user", "alice on the build box"), ("assistant", "alice on the build box"),
        ("tool_call", "alice on the build box"), ("user", identity.default_name())]
    [row] = audit.query(store.engine)
    assert row.who == "alice on the build box" and row.as_json()["who"] == "alice on the build box"
