"""The client side of MCP: callbacks the SDK `Client` calls for server-initiated traffic.

Roots (the workspace, or those set in the inspector), resource updates, sampling and elicitation (through the app's hooks), server log messages,
list_changed and elicitation/complete notifications. A mixin of `McpManager`, which provides `hooks`, `workspace`,
`_notify` and `_schedule_refresh`.
"""

from __future__ import annotations

from typing import Any, Callable

from app.mcp import convert
from app.mcp.features import Declined, ElicitationRequest, SamplingRequest
from app.mcp.server_state import ServerState, describe_error, text_of


class ClientCallbacks:
    def _message_handler(self, state: ServerState) -> Callable[[Any], Any]:
        async def handle(message: Any) -> None:
            if isinstance(message, Exception):
                state.logs.log("error", "transport", describe_error(message))
                return
            root = getattr(message, "root", message)
            name = type(root).__name__
            if name == "ToolListChangedNotification":
                self._schedule_refresh(state, "tools")
            elif name == "ResourceListChangedNotification":
                self._schedule_refresh(state, "resources")
            elif name == "PromptListChangedNotification":
                self._schedule_refresh(state, "prompts")
            elif name == "ResourceUpdatedNotification":
                self.resource_updated(state, str(root.params.uri))
            elif name == "ElicitCompleteNotification":
                state.url_completions.completed(root.params.elicitation_id)
                state.logs.log("info", "whimbrel", f"browser step {root.params.elicitation_id} completed")
        return handle

    def _logging_callback(self, state: ServerState) -> Callable[[Any], Any]:
        async def on_log(params: Any) -> None:
            level = str(getattr(params, "level", "info"))
            state.logs.log(level, getattr(params, "logger", None) or state.name, text_of(params.data))
            self._notify(state.name, "log")
        return on_log

    def _roots_callback(self, state: ServerState) -> Callable[[Any], Any]:
        """roots/list: the roots set for this server in the inspector, else the workspace."""
        async def roots(context: Any) -> Any:
            import mcp.types as types

            return types.ListRootsResult(roots=[types.Root(uri=root.uri, name=root.name or None)
                                                for root in state.inspection.roots_or(self.workspace)])
        return roots

    def _sampling_callback(self, state: ServerState) -> Callable[..., Any]:
        async def sample(context: Any, params: Any) -> Any:
            import mcp.types as types

            messages = [{"role": str(m.role), "text": convert.content_to_text(m.content)
                         if not isinstance(m.content, list) else
                         "\n".join(convert.content_to_text(c) for c in m.content)} for m in params.messages]
            prefs = params.model_preferences
            hints = [h.name for h in (prefs.hints or [])] if prefs is not None and prefs.hints else []
            request = SamplingRequest(server=state.name, messages=messages, system_prompt=params.system_prompt,
                                      max_tokens=params.max_tokens, temperature=params.temperature,
                                      stop_sequences=list(params.stop_sequences or []), model_hints=hints,
                                      include_context=params.include_context,
                                      callers=self.calls.callers(state.name))
            state.logs.log("info", "whimbrel", "sampling requested")
            try:
                response = await self.hooks.sampling(request)
            except Declined as exc:
                return types.ErrorData(code=-1, message=str(exc))
            except Exception as exc:  # noqa: BLE001 - the server gets words, never a hung request
                return types.ErrorData(code=types.INTERNAL_ERROR, message=f"sampling failed: {exc}")
            return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=response.text),
                                             model=response.model, stop_reason=response.stop_reason)
        return sample

    def _elicitation_callback(self, state: ServerState) -> Callable[..., Any]:
        async def elicit(context: Any, params: Any) -> Any:
            import mcp.types as types

            mode = getattr(params, "mode", None) or "form"
            schema = getattr(params, "requested_schema", None)
            request = ElicitationRequest(
                server=state.name, message=params.message, mode="url" if mode == "url" else "form",
                schema=convert.dump(schema) if schema is not None else {},
                url=getattr(params, "url", None), elicitation_id=getattr(params, "elicitation_id", None),
                callers=self.calls.callers(state.name))
            state.logs.log("info", "whimbrel", f"elicitation requested: {params.message}")
            try:
                response = await self.hooks.elicitation(request)
            except Declined:
                return types.ElicitResult(action="decline")
            except Exception as exc:  # noqa: BLE001
                return types.ErrorData(code=types.INTERNAL_ERROR, message=f"elicitation failed: {exc}")
            return types.ElicitResult(action=response.action,
                                      content=response.content if response.action == "accept" else None)
        return elicit
