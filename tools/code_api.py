"""Code mode's generated API: the visible tools as a Python stub module the model programs against.

Deterministic (same tool set → byte-identical text, so prompt caching holds) and total: a JSON-schema
construct it cannot express becomes `Any`, a name that is not a Python identifier is renamed (the
binding map keeps the real name), and nothing in a schema can end a docstring early.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from tools.registry import ToolSpec

MCP_PREFIX, MCP_SEPARATOR = "mcp__", "__"  # app/mcp/naming.py's mcp__<server>__<tool>
RESERVED = frozenset({"run_code"})  # the transport itself is never part of the API
SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
MAX_DEPTH = 4
USAGE = '''# Code mode: call the tools below from a Python program passed to run_code(code=...).
# The program runs in a sandbox with no files of yours and no network: reach them through `tools` only.
# Top-level `await` works; every tool is an async function taking keyword arguments and returning its
# text result, e.g. `text = await tools.read_file(path="README.md")`. A failed or refused call raises
# ToolCallError (its message says why). Calls run one at a time, in order. Only what the program
# print()s, and the value of a final bare expression, come back to you: print a summary, not raw data.'''


def identifier(name: str) -> str:
    """`name` as a Python identifier: unsafe characters become '_', keywords get a trailing '_'."""
    text = re.sub(r"\W", "_", name, flags=re.ASCII) or "_"
    if text[0].isdigit():
        text = "_" + text
    return text + "_" if keyword.iskeyword(text) or keyword.issoftkeyword(text) else text


def _literal(values: Iterable[Any]) -> str | None:
    items = list(values)
    if not items or not all(isinstance(v, (str, int, bool)) and not isinstance(v, float) for v in items):
        return None
    return "Literal[" + ", ".join(repr(v) for v in items) + "]"


def _union(parts: list[str]) -> str:
    unique = list(dict.fromkeys(parts))
    if "Any" in unique:
        return "Any"
    return " | ".join(unique)


def py_type(schema: Any, depth: int = 0) -> str:
    """The Python annotation for a JSON schema; anything it cannot express is `Any`."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return "Any"
    if "const" in schema:
        return _literal([schema["const"]]) or "Any"
    if "enum" in schema:
        return _literal(schema["enum"]) or "Any"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return _union([py_type(s, depth + 1) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([py_type({**schema, "type": k}, depth + 1) for k in kind]) if kind else "Any"
    if kind in SCALARS:
        return SCALARS[kind]
    if kind == "array":
        return f"list[{py_type(schema.get('items'), depth + 1)}]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        return f"dict[str, {py_type(extra, depth + 1) if isinstance(extra, dict) else 'Any'}]"
    return "Any"


def _doc_text(text: str) -> str:
    """Text safe inside a triple-quoted docstring: no control characters, no early end, no escapes."""
    text = "".join(c if c == "\n" or c.isprintable() else " " for c in str(text))
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').rstrip('"\\ ') or "(no description)"


def _indent(text: str, prefix: str) -> str:
    return "\n".join((prefix + line).rstrip() for line in text.splitlines())


@dataclass
class ApiFunction:
    """One tool as a method: its Python name, the real tool name, and its stub text."""

    python_name: str
    tool_name: str
    spec: ToolSpec

    def stub(self, indent: str = "    ") -> str:
        params = self.spec.parameters if isinstance(self.spec.parameters, dict) else {}
        props = params.get("properties") if isinstance(params.get("properties"), dict) else {}
        required = set(params.get("required") or ()) if isinstance(params.get("required"), list) else set()
        signature, lines, odd = ["self", "*"], [], []
        for name in sorted(props, key=lambda n: (n not in required, n)):
            prop = props[name]
            if not name.isidentifier() or keyword.iskeyword(name) or name == "self":
                odd.append(name)
                continue
            annotation = py_type(prop)
            signature.append(f"{name}: {annotation}" if name in required else f"{name}: {annotation} | None = None")
            about = prop.get("description", "") if isinstance(prop, dict) else ""
            lines.append(f"{name}: {' '.join(_doc_text(about).split())}" if about else name)
        if odd:
            if signature[-1] == "*":  # a bare * needs a named argument after it
                signature.pop()
            signature.append("**arguments: Any")
            lines.append("**arguments: also " + ", ".join(repr(n) for n in odd) + " (not Python names: pass "
                         "them as **{...})")
        if signature == ["self", "*"]:
            signature = ["self"]
        description = _doc_text(self.spec.schema.get("function", {}).get("description", ""))
        doc = description + ("\n\nArgs:\n" + _indent("\n".join(lines), "    ") if lines else "")
        return (f"{indent}async def {self.python_name}({', '.join(signature)}) -> str:\n"
                f'{indent}    """{_indent(doc, indent + "    ").lstrip()}\n{indent}    """\n{indent}    ...\n')


@dataclass
class Namespace:
    """A class of the stub: the built-ins (`tools`) or one MCP server (`tools.<server>`)."""

    class_name: str
    functions: dict[str, ApiFunction] = field(default_factory=dict)

    def add(self, spec: ToolSpec, short_name: str) -> ApiFunction:
        base = identifier(short_name)
        name, n = base, 2
        while name in self.functions:
            name, n = f"{base}_{n}", n + 1
        self.functions[name] = ApiFunction(name, spec.name, spec)
        return self.functions[name]


@dataclass
class CodeApi:
    """The generated module text and the binding map (dotted Python path → real tool name)."""

    text: str
    bindings: dict[str, str]


def _split(name: str) -> tuple[str | None, str]:
    if name.startswith(MCP_PREFIX) and MCP_SEPARATOR in name[len(MCP_PREFIX):]:
        server, tool = name[len(MCP_PREFIX):].split(MCP_SEPARATOR, 1)
        return server, tool
    return None, name


def build(specs: Iterable[ToolSpec]) -> CodeApi:
    """The API of these tools, sorted by name so the same set always gives the same text."""
    root = Namespace("Tools")
    servers: dict[str, tuple[str, Namespace]] = {}
    for spec in sorted((s for s in specs if s.name not in RESERVED), key=lambda s: s.name):
        server, short = _split(spec.name)
        if server is None:
            root.add(spec, short)
        else:
            attribute = identifier(server)
            servers.setdefault(server, (attribute, Namespace("Server_" + attribute)))[1].add(spec, short)
    bindings = {name: f.tool_name for name, f in root.functions.items()}
    parts = [USAGE, "", "from typing import Any, Literal", "", "", "class ToolCallError(Exception):",
             '    """A tool call failed or was refused; the message says why."""', ""]
    attributes: list[str] = []
    for server in sorted(servers):
        attribute, namespace = servers[server]
        while attribute in root.functions or attribute in attributes:
            attribute += "_"
        attributes.append(attribute)
        parts += ["", f"class {namespace.class_name}:", f'    """Tools of the MCP server {_doc_text(server)!s}."""', ""]
        parts += [f.stub() for f in namespace.functions.values()]
        bindings.update({f"{attribute}.{n}": f.tool_name for n, f in namespace.functions.items()})
    parts += ["", "class Tools:", '    """Every tool you may call: `await tools.<name>(...)`."""', ""]
    parts += [f"    {a}: {servers_class}" for a, servers_class in
              zip(attributes, (servers[s][1].class_name for s in sorted(servers)))]
    if attributes:
        parts.append("")
    parts += [f.stub() for f in root.functions.values()]
    parts += ["", "tools: Tools", ""]
    return CodeApi("\n".join(parts), bindings)
