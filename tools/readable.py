"""A fetched page as readable text: HTML reduced to its main content as Markdown (readabilipy's
pure-Python extraction, then markdownify), other text as is, binary refused."""

from __future__ import annotations

import re

from tools.errors import ToolError

TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml", "application/javascript")


def charset_of(content_type: str) -> str:
    match = re.search(r"charset=([\w.-]+)", content_type or "", re.I)
    return match.group(1) if match else "utf-8"


def is_html(content_type: str, body: bytes) -> bool:
    if "html" in (content_type or "").lower():
        return True
    head = body[:512].lstrip().lower()
    return head.startswith(b"<!doctype html") or head.startswith(b"<html")


def html_to_text(html: str) -> str:
    """The page's main content as Markdown; the whole body when no article is found."""
    import markdownify
    from readabilipy import simple_json_from_html_string

    article = simple_json_from_html_string(html, use_readability=False)
    content = article.get("content") or html
    text = markdownify.markdownify(content, heading_style="ATX", strip=["img", "script", "style"])
    title = (article.get("title") or "").strip()
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return f"# {title}\n\n{text}" if title and title not in text[:200] else text


def readable(content_type: str, body: bytes) -> str:
    """Text a model can read; ToolError for a binary response."""
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind and not kind.startswith(TEXT_TYPES) and not is_html(content_type, body):
        raise ToolError(f"the response is {kind}, not text or HTML, so there is nothing to read")
    text = body.decode(charset_of(content_type), errors="replace")
    return html_to_text(text) if is_html(content_type, body) else text
