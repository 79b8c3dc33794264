"""MCP resources as @-mentions: `@server:uri` of a ready server's resource is completed like a file
and attached the same way (its text read through the MCP manager when the message is sent)."""

from __future__ import annotations

import asyncio

from app.mentions.files import FILE_CAP, TRAILING, file_attachments, mentioned_paths
from app.vocabulary.attachments import Attachment, with_attachments


def resource_mentions(manager) -> list[str]:
    """"server:uri" for every resource of every ready server, in config order."""
    if manager is None:
        return []
    return [f"{state.name}:{resource.uri}" for state in manager.servers.values() if state.status == "ready"
            for resource in state.resources]


def matching_resources(manager, query: str, limit: int) -> list[str]:
    """The resource mentions containing `query` (case-insensitive), prefix matches first."""
    lowered = query.lower()
    found = [entry for entry in resource_mentions(manager) if lowered in entry.lower()]
    return sorted(found, key=lambda entry: (not entry.lower().startswith(lowered), len(entry)))[:limit]


async def resource_attachments(manager, text: str) -> list[Attachment]:
    """The MCP resources `text` mentions, read now; an unreadable one is attached as its error."""
    known = set(resource_mentions(manager))
    attachments = []
    for word in mentioned_paths(text):
        mention = word if word in known else word.rstrip(TRAILING)
        if mention not in known:
            continue
        server, uri = mention.split(":", 1)
        try:
            from app.mcp import convert

            body = convert.read_result_to_text(await manager.read_resource(server, uri))
        except Exception as error:  # noqa: BLE001 - a broken server's reason is what the user needs
            body = f"(could not read this resource: {str(error) or type(error).__name__})"
        attachments.append(Attachment("file", mention, len(body.encode()), body[:FILE_CAP],
                                      truncated=len(body) > FILE_CAP))
    return attachments


async def attach_mentions(app, text: str) -> str:
    """The message to send: `text` with the workspace files, folders and MCP resources it mentions."""
    files = await asyncio.to_thread(file_attachments, text, app.options.workdir)
    resources = await resource_attachments(getattr(getattr(app, "mcp", None), "manager", None), text)
    return with_attachments(text, files + resources)
