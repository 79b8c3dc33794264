"""Glob patterns as regular expressions, shared by permission rules and the search tool.

`*` and `?` stay within one path segment, `**/` spans any number of folders and `**` anything;
`[abc]` / `[!abc]` are character classes where the caller asks for them.
"""

from __future__ import annotations

import re


def glob_to_regex(glob: str, *, char_classes: bool = False) -> str:
    """The unanchored regex source for `glob`; every other character matches itself."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif char_classes and glob[i] == "[" and (end := glob.find("]", i + 1)) != -1:
            out.append("[" + glob[i + 1:end].replace("!", "^", 1) + "]")
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)
