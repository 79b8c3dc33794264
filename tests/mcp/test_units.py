"""Pure units: naming, the circuit breaker, schema and result conversion, the protocol log."""

from __future__ import annotations

from app.mcp import convert
from app.mcp.breaker import CircuitBreaker
from app.mcp.naming import split_tool_name, tool_name
from app.mcp.protocol_log import ServerLogs


def test_tool_names():
    assert tool_name("time", "get_current_time") == "mcp__time__get_current_time"
    assert split_tool_name("mcp__time__get_current_time") == ("time", "get_current_time")
    assert split_tool_name("bash") is None
    odd = tool_name("srv", "ok.tool/with spaces")
    assert odd == "mcp__srv__ok_tool_with_spaces"
    long = tool_name("server", "x" * 100)
    assert len(long) == 64 and long != tool_name("server", "x" * 99)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_breaker_opens_after_three_failures_and_half_opens():
    clock = Clock()
    breaker = CircuitBreaker(clock=clock, base_delay=1.0, max_delay=8.0, jitter=0.0)
    for n in range(2):
        breaker.record_failure("boom")
        assert breaker.state == "closed"
    breaker.record_failure("boom")
    assert breaker.state == "open" and not breaker.allow()
    assert breaker.seconds_until_retry() == 4.0  # 1, 2, 4: exponential
    clock.now += 4.0
    assert breaker.state == "half-open" and breaker.allow()
    breaker.record_failure("still down")
    assert breaker.state == "open" and breaker.seconds_until_retry() == 8.0
    breaker.record_failure("still down")
    assert breaker.seconds_until_retry() == 8.0  # capped
    breaker.record_success()
    assert breaker.state == "closed" and breaker.failures == 0


def test_breaker_jitter_stays_in_range():
    breaker = CircuitBreaker(base_delay=10.0, jitter=0.25)
    breaker.failures = 1
    delays = {round(breaker.delay(), 3) for _ in range(50)}
    assert all(7.5 <= d <= 12.5 for d in delays) and len(delays) > 1


def test_schema_conversion():
    good = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    params, problem = convert.convert_input_schema(good)
    assert problem is None and "$schema" not in params and params["required"] == ["a"]
    params, problem = convert.convert_input_schema({"type": "object", "properties": {"x": {"type": "bogus"}}})
    assert params == convert.PERMISSIVE and "invalid" in problem
    params, problem = convert.convert_input_schema({"type": "string"})
    assert params["type"] == "object" and "not 'object'" in problem
    assert convert.convert_input_schema(None) == (convert.PERMISSIVE, None)
    assert convert.convert_input_schema({})[0] == {"type": "object", "properties": {}}


def test_result_conversion():
    result = {"content": [{"type": "text", "text": "hi"},
                          {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                          {"type": "audio", "mimeType": "audio/wav", "data": "AAAAAAAA"},
                          {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "mimeType": "text/plain"},
                          {"type": "resource", "resource": {"uri": "mem://x", "text": "inside"}}],
              "structuredContent": {"n": 1}, "isError": False}
    text, is_error = convert.call_result_to_text(result)
    assert not is_error
    assert text.splitlines()[:4] == ["hi", "[image: image/png, 3 bytes]", "[audio: audio/wav, 6 bytes]",
                                     "[resource link: a.txt <file:///a.txt> (text/plain)]"]
    assert "[resource mem://x]\ninside" in text and 'structured content:\n{\n  "n": 1\n}' in text
    same = {"content": [{"type": "text", "text": '{"n": 1}'}], "structuredContent": {"n": 1}}
    assert convert.call_result_to_text(same) == ('{"n": 1}', False)  # not repeated
    assert convert.call_result_to_text({"content": [], "isError": True})[1] is True


def test_protocol_log_matches_responses_to_requests():
    logs = ServerLogs()
    logs.record("->", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    logs.record("<-", {"jsonrpc": "2.0", "method": "notifications/message", "params": {}})
    logs.record("<-", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    logs.record("<-", {"jsonrpc": "2.0", "id": 7, "method": "roots/list"})
    logs.record("->", {"jsonrpc": "2.0", "id": 7, "error": {"code": -1, "message": "no"}})
    kinds = [(e.direction, e.kind, e.method) for e in logs.protocol]
    assert kinds == [("->", "request", "tools/list"), ("<-", "notification", "notifications/message"),
                     ("<-", "response", "tools/list"), ("<-", "request", "roots/list"),
                     ("->", "error", "roots/list")]
    assert logs.protocol[2].elapsed_ms is not None and "tools/list" in logs.protocol[2].line()


def test_result_conversion_of_sdk_models():
    """The SDK's own models (what a call returns), read from their fields without raising lookups."""
    import mcp.types as types

    plain = types.CallToolResult(content=[types.TextContent(type="text", text="fine")],
                                 structured_content={"result": "fine"})
    assert convert.call_result_to_text(plain) == ("fine", False)  # the {"result": v} wrapping is not repeated
    number = types.CallToolResult(content=[types.TextContent(type="text", text="42")], structured_content={"result": 42})
    assert convert.call_result_to_text(number) == ("42", False)  # carried as JSON text
    extra = types.CallToolResult(content=[types.TextContent(type="text", text="see below"),
                                          types.ImageContent(type="image", mime_type="image/png", data="AAAA")],
                                 structured_content={"rows": [1, 2]})
    text, is_error = convert.call_result_to_text(extra)
    assert not is_error and text.splitlines()[:2] == ["see below", "[image: image/png, 3 bytes]"]
    assert text.endswith('structured content:\n{\n  "rows": [\n    1,\n    2\n  ]\n}')
    failed = types.CallToolResult(content=[], is_error=True)
    assert convert.call_result_to_text(failed) == ("The tool reported an error without details.", True)
    assert convert.call_result_to_text(types.CallToolResult(content=[])) == ("(no output)", False)


def test_protocol_log_records_sdk_messages():
    """The transport hands the log SessionMessages wrapping pydantic JSON-RPC models."""
    import mcp_types
    from mcp.shared.message import SessionMessage

    logs = ServerLogs()
    logs.record("->", SessionMessage(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=3, method="tools/call",
                                                              params={"name": "ok"})))
    logs.record("<-", SessionMessage(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=3, result={"content": []})))
    logs.record("<-", ValueError("not JSON"))
    request, response, broken = logs.protocol
    assert (request.kind, request.method, request.id) == ("request", "tools/call", 3)
    assert (response.kind, response.method, response.elapsed_ms is not None) == ("response", "tools/call", True)
    assert '"method": "tools/call"' in request.payload and '"content": []' in response.payload
    assert broken.kind == "error" and "not JSON" in broken.payload
