"""A URL shown before a browser opens it: the host first and prominent, with warnings worth reading."""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.text import Text


def url_block(url: str) -> Text:
    """The address with its host first and prominent: what the user must judge before opening it."""
    parts = urlsplit(url)
    host = parts.hostname or "(no host)"
    text = Text()
    text.append("Host  ", style="dim")
    text.append(host, style="bold reverse")
    if parts.scheme not in ("http", "https"):
        text.append(f"   {parts.scheme or 'no'} scheme: Whimbrel only opens http and https links", style="bold red")
    elif parts.scheme == "http":
        text.append("   not encrypted (http)", style="bold yellow")
    if "xn--" in host or not host.isascii():
        text.append("   internationalized name: check every letter", style="bold yellow")
    text.append("\nURL   ", style="dim")
    text.append(url, style="underline")
    return text
