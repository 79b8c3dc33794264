"""docs/tools.md, generated from the registry (never hand-edited): every built-in tool's schema,
primary key, approval behaviour and the agents that may use it.

    python -m tools.catalog --write     # regenerate docs/tools.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tools.registry import ToolRegistry, ToolSpec
from tools.tool_search import DEFAULT_THRESHOLD, ToolSearch
from tools.visibility import AUDIENCES, offered_to

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "tools.md"
REGENERATE = "python -m tools.catalog --write"


def approval(spec: ToolSpec) -> str:
    if spec.auto_approve:
        return "runs without asking (paths outside the workspace still ask)" if spec.path_args else \
            "runs without asking"
    return f"asks: {spec.approval_reason}"


def agents(spec: ToolSpec) -> str:
    return ", ".join(a for a in AUDIENCES if offered_to(spec, a)) or "none"


def _parameters(spec: ToolSpec) -> list[str]:
    props = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", ()))
    if not props:
        return ["No parameters."]
    rows = ["| parameter | type | required | description |", "|---|---|---|---|"]
    for name, prop in props.items():
        text = str(prop.get("description", "")).replace("|", "\\|").replace("\n", " ")
        rows.append(f"| `{name}` | {prop.get('type', 'any')} | {'yes' if name in required else 'no'} | {text} |")
    return rows


def _section(spec: ToolSpec) -> list[str]:
    function = spec.schema["function"]
    return [f"## `{spec.name}`", "", function.get("description", ""), "",
            f"- category: {spec.category}",
            f"- approval: {approval(spec)}",
            f"- agents: {agents(spec)}",
            f"- primary key (a bare string argument goes here): {f'`{spec.primary_key}`' if spec.primary_key else 'none'}",
            f"- read-only (served by `whimbrel mcp serve` by default): {'yes' if spec.read_only else 'no'}",
            *([f"- path arguments (checked against the workspace): {', '.join(spec.path_args)}"]
              if spec.path_args else []),
            "", *_parameters(spec), "", "<details><summary>schema sent to models</summary>", "", "```json",
            json.dumps(spec.schema, indent=2, ensure_ascii=False), "```", "", "</details>", ""]


def render(registry: ToolRegistry) -> str:
    specs = [registry.get(n) for n in sorted(registry.names())]
    specs = [s for s in specs if s is not None] + [ToolSearch().spec()]
    lines = ["# Tools", "", f"Generated from the tool registry by `{REGENERATE}`; do not edit by hand.", "",
             "Agents: `main` is a workstream's own model, `task` a task sub-agent, `plan` a read-only plan "
             "sub-agent. What a model is shown is exactly what it may call (`tools/visibility.py`). "
             f"Once more than {DEFAULT_THRESHOLD} tools are offered (MCP tools included), MCP tools are deferred "
             "and found with `tool_search`.", "",
             "Where the model defers tools natively (Anthropic's tool search tool on Claude Opus/Sonnet 4.5 and "
             "later, OpenAI Responses' `tool_search` on gpt-5.4 and later; the `native_tool_search` capability, "
             "settable per model under `[models.NAME.capabilities]`), that search replaces `tool_search`: the "
             "deferred tools are sent marked `defer_loading`, and only those its search loads may be called. "
             "OpenAI-compatible chat completions and Google have no native deferral, so they keep the BM25 "
             "`tool_search`; so does a fallback model without it.", "",
             "| tool | category | approval | agents | primary key | read-only |", "|---|---|---|---|---|---|"]
    for spec in specs:
        lines.append(f"| `{spec.name}` | {spec.category} | {approval(spec)} | {agents(spec)} | "
                     f"{spec.primary_key or '—'} | {'yes' if spec.read_only else 'no'} |")
    lines.append("")
    for spec in specs:
        lines.extend(_section(spec))
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.catalog", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {DOC_PATH.name} instead of printing it")
    args = parser.parse_args(argv)
    text = render(ToolRegistry.load_builtin())
    if args.write:
        DOC_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {DOC_PATH}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
