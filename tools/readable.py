"""A fetched page as readable text: HTML reduced to its main content as Markdown (readabilipy's
pure-Python extraction, then markdownify), other text as is, binary refused."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from tools.errors import ToolError

LARGE_HTML = 1_000_000  # above this, readabilipy's DOM costs too much memory: stream the text out instead
MAX_TEXT = 200_000  # characters kept of a large page
SKIPPED = {"script", "style", "noscript", "template", "svg", "head", "nav", "footer"}
BLOCKS = {"p", "div", "section", "article", "li", "tr", "br", "pre", "blockquote", "table", "ul", "ol"}
HEADINGS = {"h1": "# ", "h2": "## ", "h3": "### ", "h4": "#### ", "h5": "##### ", "h6": "###### "}


class StreamingText(HTMLParser):
    """Text of a (large) HTML document, read in one pass with the standard library's parser:
    no DOM is built, scripts and styles are skipped, blocks become lines, headings keep their #."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.size = 0
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in SKIPPED:
            self._skipping += 1
        elif tag in HEADINGS:
            self._add("\n\n" + HEADINGS[tag])
        elif tag in BLOCKS:
            self._add("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED and self._skipping:
            self._skipping -= 1
        elif tag in HEADINGS or tag in BLOCKS:
            self._add("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping and data.strip():
            self._add(" ".join(data.split()) + " ")

    def _add(self, text: str) -> None:
        if self.size < MAX_TEXT:
            self.parts.append(text)
            self.size += len(text)

    def text(self) -> str:
        lines = (line.strip() for line in "".join(self.parts).splitlines())
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()[:MAX_TEXT]


def large_html_to_text(body: bytes, charset: str) -> str:
    import codecs

    parser = StreamingText()
    try:
        decoder = codecs.getincrementaldecoder(charset)(errors="replace")
    except LookupError:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for start in range(0, len(body), 65536):
        parser.feed(decoder.decode(body[start:start + 65536]))
        if parser.size >= MAX_TEXT:
            break
    parser.close()
    return parser.text()

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
    if is_html(content_type, body) and len(body) > LARGE_HTML:
        return large_html_to_text(body, charset_of(content_type))
    text = body.decode(charset_of(content_type), errors="replace")
    return html_to_text(text) if is_html(content_type, body) else text
