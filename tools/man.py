"""man: a manual page as plain text, or a command's --help when it has none; trimmed to fit."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from typing import Any

from tools.context import ToolContext
from tools.errors import ToolError

PAGE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+@-]{0,99}$")
SECTION = re.compile(r"^[1-9][a-z]{0,8}$|^n$")
MAX_CHARS = 24_000
OVERSTRIKE = re.compile(r".\x08")
RUN_LIMIT = 20.0


async def _run(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                                                   env=env, start_new_session=True)
    try:
        out, _ = await asyncio.wait_for(process.communicate(), RUN_LIMIT)
    except (asyncio.TimeoutError, asyncio.CancelledError):
        process.kill()
        await process.wait()
        raise
    return process.returncode or 0, OVERSTRIKE.sub("", out.decode(errors="replace"))


def trimmed(text: str) -> str:
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    if len(text) <= MAX_CHARS:
        return text
    return text[:MAX_CHARS].rstrip() + f"\n\n[cut: {len(text) - MAX_CHARS:,} more characters; ask for a section]"


async def man(args: dict[str, Any], ctx: ToolContext) -> str:
    page = str(args["page"]).strip()
    section = str(args.get("section") or "").strip()
    if not PAGE_NAME.match(page):
        raise ToolError(f"man: {page!r} is not a page name (letters, digits and . _ : + @ - only)")
    if section and not SECTION.match(section):
        raise ToolError(f"man: {section!r} is not a manual section (1-9, e.g. 1, 3p)")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100",
           "LANG": "C.UTF-8", "MAN_KEEP_FORMATTING": ""}
    if shutil.which("man"):
        code, text = await _run(["man", *([section] if section else []), "--", page], env)
        if code == 0 and text.strip():
            return trimmed(text)
    program = shutil.which(page)
    if program is None or section:
        raise ToolError(f"man: no manual page for {page}" + (f" in section {section}" if section else "")
                        + ("" if program else ", and no such command on PATH"))
    if os.path.realpath(program).startswith(str(ctx.workspace) + os.sep):
        raise ToolError(f"man: no manual page for {page}; its --help is not run because {program} is inside the "
                        f"workspace (man runs without approval; use bash to run it)")
    code, text = await _run([program, "--help"], env)
    if not text.strip():
        raise ToolError(f"man: no manual page for {page}, and `{page} --help` printed nothing")
    return f"(no manual page; `{page} --help` says:)\n\n" + trimmed(text)
