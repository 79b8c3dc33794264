"""How the inspector shows what a server answered: tool results, resource contents, prompt messages.

Text stays text; structured content is pretty JSON; images, audio and blobs are described (type,
size, pixels) in a block with the key that saves them, rather than dumped; `isError` gets a red banner so an error result is never mistaken for data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.color import Color
from rich.panel import Panel
from rich.style import Style
from rich.text import Text

from app.mcp.convert import _get, describe_bytes
from app.mcp.media import Media, describe


def pretty_json(value: Any) -> RenderableType:
    """Indented, highlighted JSON (no background of its own, so it sits on any panel)."""
    return JSON(json.dumps(value, ensure_ascii=False, default=str), indent=2, ensure_ascii=False)


def _heading(label: str, style: str = "bold cyan") -> Text:
    return Text(f"── {label} ", style=style)


def _timing(elapsed_ms: float | None) -> str:
    return f" in {elapsed_ms:.1f} ms" if elapsed_ms is not None else ""


def _resource_parts(contents: Any) -> list[RenderableType]:
    uri = str(_get(contents, "uri", default=""))
    mime = _get(contents, "mime_type", "mimeType", default="")
    text = _get(contents, "text")
    parts: list[RenderableType] = [_heading(f"resource {uri}" + (f" ({mime})" if mime else ""), "bold magenta")]
    if text is not None:
        parts.append(Text(text))
    else:
        size = describe_bytes(_get(contents, "blob"))
        parts.append(Text(f"[binary: {mime or 'unknown type'}, {size} bytes]", style="italic"))
    return parts


def half_blocks(grid: Any) -> Text:
    """Rows of RGB pixels (None: transparent) as text, two pixel rows per line: '▀' in the top pixel's
    colour on the bottom one's."""
    text = Text()
    for y in range(0, len(grid), 2):
        if y:
            text.append("\n")
        top_row, bottom_row = grid[y], grid[y + 1] if y + 1 < len(grid) else (None,) * len(grid[y])
        for top, bottom in zip(top_row, bottom_row):
            if top is None and bottom is None:
                text.append(" ")
            elif top is None:
                text.append("▄", Style(color=Color.from_rgb(*bottom)))
            else:
                text.append("▀", Style(color=Color.from_rgb(*top),
                                       bgcolor=Color.from_rgb(*bottom) if bottom is not None else None))
    return text


def _preview(media: Media) -> Text | None:
    """An inline preview of a small PNG (app/mcp/png_pixels.py); None for anything else."""
    from app.mcp.png_pixels import png_pixels

    if media.kind != "image" or media.mime != "image/png":
        return None
    try:
        grid = png_pixels(media.decoded())
    except ValueError:
        return None
    return half_blocks(grid) if grid else None


@dataclass(frozen=True)
class MediaView:
    """How media blocks are shown: `previews` (half blocks of small PNGs; off where the terminal draws
    images itself) and the keys in force ([keymap]) that save and open media."""

    previews: bool = True
    save_key: str = "Ctrl+S"
    open_key: str = "Ctrl+O"


PLAIN = MediaView()


def media_block(media: Media, view: MediaView = PLAIN) -> RenderableType:
    """An image or audio clip as a clear block: a small PNG's pixels as half blocks, what it is (with
    an audio clip's length when its header tells), its size, and the keys that save it or open it."""
    icon = "▣ image" if media.kind == "image" else "♪ audio"
    opens = " saves it and plays it" if media.kind == "audio" else " saves it and opens it in your viewer"
    body = Text.assemble((f"{icon}  ", "bold"), (describe(media), ""), "\n",
                         (view.save_key, "bold reverse"), (" (or Save media) saves it to a file", "dim"), "\n",
                         (view.open_key, "bold reverse"), (opens, "dim"))
    preview = _preview(media) if view.previews else None
    return Panel(Group(preview, body) if preview is not None else body, border_style="yellow", expand=False,
                 padding=(0, 1))


def content_parts(block: Any, view: MediaView = PLAIN) -> list[RenderableType]:
    """One content block (text, image, audio, resource link, embedded resource) as renderables
    (`view`: whether small PNGs get half-block pictures, and the keys in force that save and open media)."""
    kind = _get(block, "type", default="")
    if kind == "text":
        return [_heading("text"), Text(_get(block, "text", default=""))]
    if kind in ("image", "audio"):
        media = Media(kind, _get(block, "mime_type", "mimeType", default="") or "", _get(block, "data") or "")
        return [_heading(kind, "bold yellow"), media_block(media, view)]
    if kind == "resource_link":
        uri = str(_get(block, "uri", default=""))
        name = _get(block, "title", "name", default="") or uri
        mime = _get(block, "mime_type", "mimeType", default="")
        line = Text(f"{name} <{uri}>" + (f" ({mime})" if mime else ""))
        description = _get(block, "description", default="")
        return [_heading("resource link", "bold magenta"), line] + ([Text(description, style="dim")]
                                                                    if description else [])
    if kind == "resource":
        return _resource_parts(_get(block, "resource"))
    return [_heading(kind or "unknown content", "bold red"), Text(str(block), style="dim")]


def _output_check(problems: list[str] | None) -> list[RenderableType]:
    """The outputSchema verdict: nothing when no schema was declared (None), else a line per problem."""
    if problems is None:
        return []
    if not problems:
        return [Text("✔ structured content matches the outputSchema", style="green")]
    lines = Text(f"✖ structured content does not match the outputSchema ({len(problems)} problem(s))",
                 style="bold red")
    for problem in problems:
        lines.append(f"\n  • {problem}", style="red")
    return [lines]


def call_result(result: Any, elapsed_ms: float | None = None,
                output_problems: list[str] | None = None, view: MediaView = PLAIN) -> RenderableType:
    """A CallToolResult: the isError flag, every content block, then structured content and, when the
    tool declares an outputSchema, whether it conforms (`output_problems`, see app/mcp/output_check.py)."""
    is_error = bool(_get(result, "is_error", "isError", default=False))
    if is_error:
        banner = Text(f" isError: true — the tool reported an error{_timing(elapsed_ms)} ", style="bold white on red")
    else:
        banner = Text(f"✔ result{_timing(elapsed_ms)}  (isError: false)", style="bold green")
    parts: list[RenderableType] = [banner]
    blocks = _get(result, "content", default=[]) or []
    for block in blocks:
        parts.extend(content_parts(block, view))
    structured = _get(result, "structured_content", "structuredContent")
    if structured is not None:
        parts.extend([_heading("structured content"), pretty_json(structured)])
    parts.extend(_output_check(output_problems))
    if not blocks and structured is None:
        parts.append(Text("(no content)", style="dim"))
    return Group(*parts)


def read_result(result: Any, uri: str, elapsed_ms: float | None = None) -> RenderableType:
    """A ReadResourceResult: each contents item, text or described binary."""
    contents = _get(result, "contents", default=[]) or []
    parts: list[RenderableType] = [Text(f"✔ read {uri}{_timing(elapsed_ms)}  ({len(contents)} item(s))",
                                        style="bold green")]
    for item in contents:
        parts.extend(_resource_parts(item))
    if not contents:
        parts.append(Text("(empty resource)", style="dim"))
    return Group(*parts)


def prompt_result(result: Any, elapsed_ms: float | None = None, view: MediaView = PLAIN) -> RenderableType:
    """A GetPromptResult: its description and each message with its role."""
    messages = _get(result, "messages", default=[]) or []
    parts: list[RenderableType] = [Text(f"✔ {len(messages)} message(s){_timing(elapsed_ms)}", style="bold green")]
    description = _get(result, "description")
    if description:
        parts.append(Text(description, style="italic"))
    for message in messages:
        role = str(_get(message, "role", default="?"))
        parts.append(Text(f"[{role}]", style="bold blue"))
        content = _get(message, "content")
        for block in content if isinstance(content, list) else [content]:
            parts.extend(content_parts(block)[1:] if _get(block, "type") == "text" else content_parts(block, view))
    if not messages:
        parts.append(Text("(the prompt has no messages)", style="dim"))
    return Group(*parts)


def failure(message: str) -> RenderableType:
    """A request that failed (not connected, timeout, protocol error): the words, in red."""
    return Text(f"✖ {message}", style="bold red")


def render_answer(kind: str, answer: dict[str, Any], elapsed_ms: float | None = None,
                  view: MediaView = PLAIN) -> RenderableType:
    """An answer as the inspector keeps it (JSON, see `CatalogPane.run`), shown: live and from the
    stored history alike. `kind` is the tab: tools, resources or prompts; `view` as in content_parts."""
    if "result" not in answer:
        return failure(str(answer.get("error") or "no answer was kept"))
    result = answer["result"]
    if kind == "tools":
        problems = answer.get("problems")
        return call_result(result, elapsed_ms, problems if isinstance(problems, list) else None, view)
    if kind == "resources":
        return read_result(result, str(answer.get("uri", "")), elapsed_ms)
    return prompt_result(result, elapsed_ms, view)
