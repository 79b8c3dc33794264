"""notify: tell the user something now — a desktop notification (OSC 9/777 from the app, and
`notify-send` where a desktop session has it) plus the workstream's tab marked."""

from __future__ import annotations

import asyncio
import os
import shutil
from typing import Any

from tools.context import ToolContext
from tools.errors import ToolError

MAX_CHARS = 2000
DESKTOP_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS")


async def _notify_send(title: str, message: str) -> bool:
    program = shutil.which("notify-send")
    if program is None or not any(os.environ.get(v) for v in DESKTOP_VARIABLES):
        return False
    process = await asyncio.create_subprocess_exec(program, "--app-name=Whimbrel", "--", title, message,
                                                   stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                                                   stderr=asyncio.subprocess.DEVNULL, start_new_session=True)
    try:
        return await asyncio.wait_for(process.wait(), 5) == 0
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        return False


async def notify(args: dict[str, Any], ctx: ToolContext) -> str:
    message = " ".join(str(args["message"]).split())[:MAX_CHARS]
    if not message:
        raise ToolError("notify needs a message")
    title = str(args.get("title") or "Whimbrel").strip()[:100]
    if ctx.notify is not None:
        ctx.notify(f"{title}: {message}" if args.get("title") else message)
    printable = "".join(ch for ch in message if ch.isprintable())  # the desktop gets no control codes
    sent = await _notify_send("".join(ch for ch in title if ch.isprintable()), printable)
    return "Notified the user" + (" (desktop notification sent)." if sent else ".")
