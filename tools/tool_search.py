"""tool_search: once more tools are offered than a threshold, non-built-in tools are deferred and
found by a BM25 search over their names, descriptions and parameters; found tools stay visible.

With a provider that defers tools itself (`native`: Anthropic's tool search tool, Responses'
tool_search), the deferred tools go to it marked `defer_loading` beside its own search tool instead
of ours, and what its search loads (`found_natively`) becomes callable, exactly as a BM25 hit does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tools.bm25 import Bm25Index
from tools.errors import ToolError
from tools.registry import ToolSpec

TOOL_SEARCH = "tool_search"
DEFAULT_THRESHOLD = 20
DEFAULT_MAX_RESULTS = 5
# In a tool list: the provider's own tool search, which the providers that have one translate
# (Anthropic: tool_search_tool_bm25; Responses: tool_search). Deferred tools carry DEFER_LOADING.
NATIVE_TOOL_SEARCH: dict[str, Any] = {"type": "native_tool_search"}
DEFER_LOADING = "defer_loading"


def deferred_schema(spec: ToolSpec) -> dict[str, Any]:
    """A deferred tool's schema as sent to a provider that loads it only when its search finds it."""
    return {**spec.schema, DEFER_LOADING: True}


def searchable_text(spec: ToolSpec) -> str:
    """What the index reads of a tool: its name, description, and each parameter's name and text."""
    function = spec.schema.get("function", {})
    parts = [spec.name, spec.name, function.get("description", "")]
    for name, prop in spec.parameters.get("properties", {}).items():
        parts.append(name)
        if isinstance(prop, dict):
            parts.append(str(prop.get("description", "")))
    return " ".join(parts)


@dataclass
class ToolSearch:
    """One session's tool-search state: the threshold and the deferred tools found so far."""

    threshold: int = DEFAULT_THRESHOLD
    max_results: int = DEFAULT_MAX_RESULTS
    mode: str = "auto"  # "auto" (by threshold), "on", "off"
    native: bool = False  # the provider of the current request defers tools itself (set per request)
    found: set[str] = field(default_factory=set)
    _index_key: tuple[str, ...] = ()
    _index: Bm25Index | None = None
    _deferrable: dict[str, ToolSpec] = field(default_factory=dict)  # what the index covers, found or not
    _deferred: dict[str, ToolSpec] = field(default_factory=dict)

    def active(self, candidates: list[ToolSpec]) -> bool:
        if self.mode == "off":
            return False
        deferrable = any(not s.builtin for s in candidates)
        return deferrable and (self.mode == "on" or len(candidates) > self.threshold)

    def visible(self, candidates: list[ToolSpec]) -> list[ToolSpec]:
        """Built-ins, the tools found so far, then tool_search itself (ours; with a native provider its
        own search stands in, see NATIVE_TOOL_SEARCH); the rest are deferred."""
        self._deferrable = {s.name: s for s in candidates if not s.builtin}
        self._deferred = {name: s for name, s in self._deferrable.items() if name not in self.found}
        shown = [s for s in candidates if s.builtin or s.name in self.found]
        return shown if self.native else shown + [self.spec()]

    def found_natively(self, names: list[str]) -> list[str]:
        """The provider's search loaded `names`: those that are deferred here become callable (a name
        we never deferred widens nothing). Returns the ones newly found."""
        new = [name for name in names if name in self._deferred and name not in self.found]
        self.found.update(new)
        return new

    def deferred(self) -> dict[str, ToolSpec]:
        return dict(self._deferred)

    def search(self, query: str) -> list[ToolSpec]:
        """The best deferred tools for `query`; they become visible from the next model call on.

        The index covers every deferrable tool, found ones too, so finding tools never rebuilds it
        (only a change in the tools offered does); found ones are skipped in the ranking."""
        key = tuple(sorted(self._deferrable))
        if self._index is None or key != self._index_key:
            self._index = Bm25Index()
            for spec in self._deferrable.values():
                self._index.add(spec.name, searchable_text(spec))
            self._index_key = key
        ranked = self._index.search(query, self.max_results + len(self._deferrable) - len(self._deferred))
        hits = [self._deferred[name] for name, _score in ranked if name in self._deferred][:self.max_results]
        self.found.update(s.name for s in hits)
        return hits

    def spec(self) -> ToolSpec:
        async def run(args: dict[str, Any], _ctx: Any) -> str:
            query = str(args.get("query", "")).strip()
            if not query:
                raise ToolError("tool_search needs a query: words describing what the tool should do")
            hits = self.search(query)
            if not hits:
                return (f"No deferred tool matches {query!r}. {len(self._deferred)} tools are deferred; "
                        f"try other words.")
            lines = [f"Found {len(hits)} tool(s); they are available from now on:"]
            for spec in hits:
                function = spec.schema.get("function", {})
                lines.append(f"- {spec.name}: {function.get('description', '')}\n  parameters: "
                             f"{json.dumps(spec.parameters, ensure_ascii=False)}")
            return "\n".join(lines)

        return ToolSpec(name=TOOL_SEARCH, schema=TOOL_SEARCH_SCHEMA, implementation=run, auto_approve=True,
                        agent=True, task_agent=False, plan_agent=False, read_only=True, primary_key="query",
                        category="tool search", builtin=True, approval_reason="searches the deferred tools")


TOOL_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_SEARCH,
        "description": ("Find tools that are not in your tool list yet. Many MCP tools are deferred to keep "
                        "the list short: describe what you need in a few words (e.g. 'create github issue') "
                        "and the best matches become callable from your next step on."),
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string", "description": "Words describing the tool you need."}},
            "required": ["query"]},
    },
}
