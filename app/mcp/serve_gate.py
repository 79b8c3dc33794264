"""One call of `whimbrel mcp serve` through the permission engine, as the TUI's session does it: hooks,
rules, mode, risk and protected places decide (tools/guard.py, unattended: what would ask is refused
with the reason), bash runs in the sandbox, PostToolUse hooks see the result, and an audit row says who
decided, the sandbox level, the status and the duration (arguments redacted by the audit log)."""

from __future__ import annotations

import dataclasses
import json
import time
import uuid
from typing import Any

from app.vocabulary.messages import ToolCall
from tools.context import ToolContext
from tools.guard import CallGuard
from tools.pipeline import execute, prepare
from tools.registry import ToolRegistry
from tools.visibility import ToolScope

WORKSTREAM = "mcp-serve"  # the audit rows' workstream: `whimbrel audit` and the audit screen filter on it
NOBODY = ("nobody is here to approve it over MCP; the server's operator can pre-approve it by starting "
          "`whimbrel mcp serve` with {advice}")


async def guarded_call(guard: CallGuard, registry: ToolRegistry, context: ToolContext, scope: ToolScope,
                       name: str, arguments: dict[str, Any] | None) -> tuple[str, bool]:
    """(result text, is_error) of one call; a refused call is an error that says why it was refused."""
    call = ToolCall(id=f"mcp_{uuid.uuid4().hex[:12]}", name=name, arguments=json.dumps(arguments or {}))
    prepared = prepare(call, registry, context, scope)
    if prepared.error is not None:
        await guard.record(prepared, None, "refused", "refused", None, WORKSTREAM,
                           decided_by="not run: the call was invalid")
        return prepared.error, True
    verdict = await guard.screen(prepared, WORKSTREAM)
    if verdict.outcome != "allow":
        await guard.record(prepared, verdict, "refused", "refused", None, WORKSTREAM)
        return f"Refused by Whimbrel's permission policy: {verdict.why.rstrip('.')}.", True
    started = time.monotonic()
    ctx = dataclasses.replace(context, wrap_command=guard.wrapper(prepared.call.name.strip(), verdict.network),
                              call_id=call.id, workstream_id=WORKSTREAM, unreadable=guard.unreadable)
    output, is_error = await execute(prepared, ctx)
    if is_error and prepared.call.name.strip() == "bash" and (blocked := guard.blocked(output, verdict.network)):
        output += (f"\n[{blocked}. The command ran in Whimbrel's sandbox (the workspace and a private /tmp are "
                   "writable; the network is off unless a rule allows it), and over MCP it cannot be rerun outside.]")
    duration = time.monotonic() - started
    output = await guard.after(prepared, output, is_error, WORKSTREAM)
    await guard.record(prepared, verdict, "allowed", "error" if is_error else "done", duration, WORKSTREAM,
                       network=verdict.network)
    return output, is_error
