"""`whimbrel mcp serve --conformance --http HOST:PORT`: the fixed tools, resources and prompts the official MCP
conformance suite's server scenarios call, served by the same SDK server and HTTP transport as `serve --http`
(its SSE event store and retry, its DNS-rebinding protection), so the suite can check that transport.

Test-only: nothing here touches the machine (every answer is a constant or echoes its arguments), and it
listens on a loopback address only, without the bearer token (the suite cannot send one).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import wave
from typing import Any

PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _wav() -> str:
    """A tenth of a second of silence, 8 kHz mono, as base64."""
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(1)
        sound.setframerate(8000)
        sound.writeframes(b"\x80" * 800)
    return base64.b64encode(out.getvalue()).decode()


def _tools(types: Any) -> list[Any]:
    empty = {"type": "object", "properties": {}}

    def tool(name: str, description: str, schema: dict | None = None) -> Any:
        return types.Tool(name=name, description=description, input_schema=schema or empty)

    return [
        tool("test_simple_text", "Returns simple text."),
        tool("test_image_content", "Returns an image."),
        tool("test_audio_content", "Returns audio."),
        tool("test_embedded_resource", "Returns an embedded resource."),
        tool("test_multiple_content_types", "Returns text, an image and a resource."),
        tool("test_tool_with_logging", "Sends three log messages."),
        tool("test_tool_with_progress", "Reports progress."),
        tool("test_error_handling", "Always fails."),
        tool("test_sampling", "Asks the client's model.", {"type": "object", "properties": {
            "prompt": {"type": "string"}}, "required": ["prompt"]}),
        tool("test_elicitation", "Asks the user.", {"type": "object", "properties": {
            "message": {"type": "string"}}, "required": ["message"]}),
        tool("test_elicitation_sep1034_defaults", "Asks with defaults."),
        tool("test_elicitation_sep1330_enums", "Asks with enums."),
        tool("test_reconnection", "Closes its SSE stream mid-call, then answers."),
        tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", {
            "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"},
                                                                   "city": {"type": "string"}}}},
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": False}),
    ]


SEP1034 = {"type": "object", "properties": {
    "name": {"type": "string", "default": "John Doe"}, "age": {"type": "integer", "default": 30},
    "score": {"type": "number", "default": 95.5},
    "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
    "verified": {"type": "boolean", "default": True}}}
SEP1330 = {"type": "object", "properties": {
    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
    "titledSingle": {"type": "string", "oneOf": [{"const": "value1", "title": "First Option"},
                                                 {"const": "value2", "title": "Second Option"},
                                                 {"const": "value3", "title": "Third Option"}]},
    "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                   "enumNames": ["Option One", "Option Two", "Option Three"]},
    "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
    "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                                         {"const": "value2", "title": "Second Choice"},
                                                         {"const": "value3", "title": "Third Choice"}]}}}}


def _progress_token(meta: Any) -> Any:
    if isinstance(meta, dict):
        return meta.get("progressToken", meta.get("progress_token"))
    return getattr(meta, "progress_token", None)


def build_conformance_server() -> Any:
    """The low-level SDK server answering the conformance scenarios."""
    import mcp.types as types
    from mcp.server.lowlevel.server import Server

    def text(value: str) -> Any:
        return types.TextContent(type="text", text=value)

    def embedded(uri: str, mime: str, body: str) -> Any:
        return types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri=uri, mime_type=mime, text=body))

    async def list_tools(_ctx: Any, _params: Any) -> Any:
        return types.ListToolsResult(tools=_tools(types))

    async def call_tool(ctx: Any, params: Any) -> Any:
        name, args, session = params.name, params.arguments or {}, ctx.session
        related = ctx.request_id
        if name == "test_simple_text":
            content = [text("This is a simple text response for testing.")]
        elif name == "test_image_content":
            content = [types.ImageContent(type="image", data=PNG, mime_type="image/png")]
        elif name == "test_audio_content":
            content = [types.AudioContent(type="audio", data=_wav(), mime_type="audio/wav")]
        elif name == "test_embedded_resource":
            content = [embedded("test://embedded-resource", "text/plain", "This is an embedded resource content.")]
        elif name == "test_multiple_content_types":
            content = [text("Multiple content types test:"),
                       types.ImageContent(type="image", data=PNG, mime_type="image/png"),
                       embedded("test://mixed-content-resource", "application/json",
                                json.dumps({"test": "data", "value": 123}, separators=(",", ":")))]
        elif name == "test_tool_with_logging":
            for index, line in enumerate(("Tool execution started", "Tool processing data",
                                          "Tool execution completed")):
                if index:
                    await asyncio.sleep(0.05)
                await session.send_log_message("info", line, related_request_id=related)
            content = [text("Tool with logging executed successfully")]
        elif name == "test_tool_with_progress":
            token = _progress_token(ctx.meta) or _progress_token(getattr(params, "meta", None))
            for index, value in enumerate((0, 50, 100)):
                if index:
                    await asyncio.sleep(0.05)
                if token is not None:
                    await session.send_progress_notification(token, value, 100, related_request_id=related)
            content = [text("Tool with progress executed successfully")]
        elif name == "test_error_handling":
            return types.CallToolResult(content=[text("This tool intentionally returns an error for testing")],
                                        is_error=True)
        elif name == "test_sampling":
            answer = await session.create_message(
                [types.SamplingMessage(role="user", content=text(str(args.get("prompt", ""))))], max_tokens=100,
                related_request_id=related)
            said = getattr(answer.content, "text", "") if not isinstance(answer.content, list) else \
                " ".join(getattr(part, "text", "") for part in answer.content)
            content = [text(f"LLM response: {said}")]
        elif name in ("test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"):
            schema = {"test_elicitation": {"type": "object", "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}},
                "required": ["username", "email"]},
                "test_elicitation_sep1034_defaults": SEP1034, "test_elicitation_sep1330_enums": SEP1330}[name]
            message = str(args.get("message", "Please answer"))
            answer = await session.elicit_form(message, schema, related_request_id=related)
            prefix = "User response: " if name == "test_elicitation" else "Elicitation completed: "
            content = [text(f"{prefix}action={answer.action}, content={json.dumps(answer.content or {})}")]
        elif name == "test_reconnection":
            if ctx.close_sse_stream is not None:
                await ctx.close_sse_stream()
            await asyncio.sleep(0.1)
            content = [text("Reconnection test completed")]
        elif name == "json_schema_2020_12_tool":
            content = [text(f"Received: {json.dumps(args)}")]
        else:
            return types.CallToolResult(content=[text(f"unknown tool {name}")], is_error=True)
        return types.CallToolResult(content=content)

    static = {"test://static-text": ("text/plain", "This is the content of the static text resource.", False),
              "test://static-binary": ("image/png", PNG, True),
              "test://watched-resource": ("text/plain", "Watched resource content.", False)}

    async def list_resources(_ctx: Any, _params: Any) -> Any:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=uri.rsplit("/", 1)[-1], mime_type=mime)
            for uri, (mime, _body, _binary) in static.items()])

    async def list_templates(_ctx: Any, _params: Any) -> Any:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template="test://template/{id}/data", name="template", mime_type="application/json")])

    async def read_resource(_ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        if uri in static:
            mime, body, binary = static[uri]
            part = (types.BlobResourceContents(uri=uri, mime_type=mime, blob=body) if binary else
                    types.TextResourceContents(uri=uri, mime_type=mime, text=body))
            return types.ReadResourceResult(contents=[part])
        if uri.startswith("test://template/") and uri.endswith("/data"):
            ident = uri[len("test://template/"):-len("/data")]
            body = json.dumps({"id": ident, "templateTest": True, "data": f"Data for ID: {ident}"},
                              separators=(",", ":"))
            return types.ReadResourceResult(contents=[types.TextResourceContents(
                uri=uri, mime_type="application/json", text=body)])
        raise ValueError(f"unknown resource {uri}")

    async def subscription(_ctx: Any, _params: Any) -> Any:
        return types.EmptyResult()

    prompts = [types.Prompt(name="test_simple_prompt", description="A simple prompt"),
               types.Prompt(name="test_prompt_with_arguments", description="A prompt with arguments", arguments=[
                   types.PromptArgument(name="arg1", required=True), types.PromptArgument(name="arg2", required=True)]),
               types.Prompt(name="test_prompt_with_embedded_resource", description="A prompt with a resource",
                            arguments=[types.PromptArgument(name="resourceUri", required=True)]),
               types.Prompt(name="test_prompt_with_image", description="A prompt with an image")]

    async def list_prompts(_ctx: Any, _params: Any) -> Any:
        return types.ListPromptsResult(prompts=prompts)

    async def get_prompt(_ctx: Any, params: Any) -> Any:
        args = params.arguments or {}

        def user(content: Any) -> Any:
            return types.PromptMessage(role="user", content=content)

        messages = {
            "test_simple_prompt": lambda: [user(text("This is a simple prompt for testing."))],
            "test_prompt_with_arguments": lambda: [user(text(
                f"Prompt with arguments: arg1='{args.get('arg1', '')}', arg2='{args.get('arg2', '')}'"))],
            "test_prompt_with_embedded_resource": lambda: [
                user(embedded(args.get("resourceUri", "test://example-resource"), "text/plain",
                              "Embedded resource content for testing.")),
                user(text("Please process the embedded resource above."))],
            "test_prompt_with_image": lambda: [
                user(types.ImageContent(type="image", data=PNG, mime_type="image/png")),
                user(text("Please analyze the image above."))],
        }.get(params.name)
        if messages is None:
            raise ValueError(f"unknown prompt {params.name}")
        return types.GetPromptResult(messages=messages())

    async def complete(_ctx: Any, _params: Any) -> Any:
        return types.CompleteResult(completion=types.Completion(values=[], total=0, has_more=False))

    async def set_level(_ctx: Any, _params: Any) -> Any:
        return types.EmptyResult()

    import warnings

    with warnings.catch_warnings():  # logging/setLevel: deprecated in 2026-07-28, still a 2025-11-25 scenario
        warnings.simplefilter("ignore")
        return Server("whimbrel-conformance", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool,
                      on_list_resources=list_resources, on_list_resource_templates=list_templates,
                      on_read_resource=read_resource, on_subscribe_resource=subscription,
                      on_unsubscribe_resource=subscription, on_list_prompts=list_prompts, on_get_prompt=get_prompt,
                      on_completion=complete, on_set_logging_level=set_level)


async def serve_conformance(host: str, port: int) -> None:
    import uvicorn

    from app.mcp.serve_events import RETRY_MS, MemoryEventStore

    if host not in LOOPBACK:
        raise ValueError(f"--conformance listens on a loopback address only, not {host}")
    app = build_conformance_server().streamable_http_app(host=host, event_store=MemoryEventStore(),
                                                         retry_interval=RETRY_MS)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="on")
    await uvicorn.Server(config).serve()
