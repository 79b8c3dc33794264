"""web_fetch: a page fetched safely (tools/pinned_fetch.py), reduced to readable text, and — with a
`question` — answered by the workstream's model so the page itself never floods the context."""

from __future__ import annotations

from typing import Any

from tools.context import ToolContext
from tools.errors import ToolError
from tools.pinned_fetch import fetch
from tools.readable import readable

PAGE_CHARS_FOR_MODEL = 60_000  # how much of a page the answering model reads
PAGE_CHARS_RETURNED = 20_000  # how much page text comes back when there is no question

QUESTION_PROMPT = """Answer the question using only the web page below. Quote exact figures and names;
say plainly when the page does not contain the answer. Keep the answer short.

Question: {question}

Page ({url}):
<page>
{page}
</page>"""


async def web_fetch(args: dict[str, Any], ctx: ToolContext) -> str:
    url = str(args["url"]).strip()
    question = str(args.get("question") or "").strip()
    web = ctx.web
    page = await fetch(url, web.policy, web.limits, web.resolver)
    if page.status >= 400:
        raise ToolError(f"{page.url} answered HTTP {page.status}")
    text = readable(page.content_type, page.body)
    notes = []
    if page.redirects:
        notes.append(f"redirected to {page.url}")
    if page.truncated:
        notes.append(f"cut at {web.limits.max_bytes:,} bytes")
    header = f"{page.url}" + (f" ({'; '.join(notes)})" if notes else "")
    if not question:
        shown = text[:PAGE_CHARS_RETURNED]
        more = f"\n\n[{len(text) - len(shown):,} more characters not shown; ask a question to read all of it]" \
            if len(text) > len(shown) else ""
        return f"{header}\n\n{shown}{more}"
    if ctx.ask_model is None:
        raise ToolError("web_fetch cannot answer a question here (no model is available to read the page); "
                        "call it without `question` to get the page text")
    prompt = QUESTION_PROMPT.format(question=question, url=page.url, page=text[:PAGE_CHARS_FOR_MODEL])
    answer = (await ctx.ask_model(prompt)).strip()
    return f"{header}\n\n{answer or '(the model gave no answer)'}"
