"""Snapshots of the inspector's newer views on their own: the OAuth step view, the completion dropdown
under a prompt's form, the roots editor and an image result (snapshots/test_mcp_inspector_views/)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from app.mcp.config import ServerConfig
from app.mcp.oauth.steps import OAuthStep, OAuthSteps
from app.mcp.server_state import ServerState
from widgets.mcp_oauth_steps import OAuthStepsView

BASE = "http://127.0.0.1:8931"


def recorded_sign_in() -> OAuthSteps:
    """A sign-in as the recorder writes it (fixed times, so the snapshot is stable)."""
    steps = OAuthSteps()
    at = 1000.0
    for offset, stage, method, url, status, request, response, note in [
        (0.000, "MCP request: sign-in needed", "POST", f"{BASE}/mcp", 401, "content-type: application/json",
         'www-authenticate: Bearer resource_metadata="…"', ""),
        (0.012, "discovery: protected resource metadata", "GET", f"{BASE}/.well-known/oauth-protected-resource/mcp",
         200, "", '{\n  "resource": "http://127.0.0.1:8931/mcp"\n}', ""),
        (0.020, "discovery: authorization server metadata", "GET", f"{BASE}/.well-known/oauth-authorization-server",
         200, "", '{\n  "token_endpoint": "http://127.0.0.1:8931/token"\n}', ""),
        (0.031, "registration", "POST", f"{BASE}/register", 201, '{\n  "client_name": "Whimbrel"\n}',
         '{\n  "client_id": "c-41"\n}', ""),
        (0.040, "authorization: sign in through the browser", "BROWSER", f"{BASE}/authorize?client_id=c-41", None,
         "", "", "the browser comes back to http://127.0.0.1:53682/callback"),
        (2.513, "authorization: the browser came back", "BROWSER", "http://127.0.0.1:53682/callback", None, "", "",
         "an authorization code (42 characters) for state Zx81kQ"),
        (2.530, "token exchange (authorization code)", "POST", f"{BASE}/token", 200,
         "grant_type = authorization_code\ncode = (redacted, 42 characters)",
         '{\n  "access_token": "(redacted, 43 characters)",\n  "token_type": "Bearer"\n}', ""),
        (2.551, "MCP request", "POST", f"{BASE}/mcp", 200, "", "", ""),
    ]:
        steps.steps.append(OAuthStep(at + offset, stage, method, url, status, request, response, note))
    return steps


class OAuthHost(App):
    def compose(self) -> ComposeResult:
        yield OAuthStepsView()

    def on_mount(self) -> None:
        self.animation_level = "none"
        state = ServerState(ServerConfig("secure", transport="http", url=f"{BASE}/mcp"))
        state.oauth_steps = recorded_sign_in()
        view = self.query_one(OAuthStepsView)
        view.show_server(state)


def test_oauth_step_view(snap_compare) -> None:
    async def highlight_the_token_exchange(pilot: Any) -> None:
        from textual.widgets import DataTable

        await pilot.pause()
        table = pilot.app.query_one(DataTable)
        table.focus()
        table.move_cursor(row=6)
        await pilot.pause()

    assert snap_compare(OAuthHost(), terminal_size=(120, 30), run_before=highlight_the_token_exchange)


def team_server() -> Any:
    """An SDK server with one prompt whose arguments the server completes (the second from the first)."""
    import mcp.types as types
    from mcp.server import Server

    teams = {"Engineering": ["Alice", "Bob", "Charlie"], "Marketing": ["Grace", "Henry"]}

    async def list_prompts(ctx: Any, params: Any) -> Any:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name="lead", description="Choose who leads a department",
            arguments=[types.PromptArgument(name="department", required=True, description="The department"),
                       types.PromptArgument(name="name", required=True, description="Who leads it")])])

    async def get_prompt(ctx: Any, params: Any) -> Any:
        args = params.arguments or {}
        return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=types.TextContent(
            type="text", text=f"{args.get('name')} leads {args.get('department')}."))])

    async def complete(ctx: Any, params: Any) -> Any:
        value = params.argument.value
        if params.argument.name == "department":
            values = [d for d in teams if d.startswith(value)]
        else:
            department = (params.context.arguments or {}).get("department", "") if params.context else ""
            values = [n for n in teams.get(department, []) if n.startswith(value)]
        return types.CompleteResult(completion=types.Completion(values=values, total=len(values), has_more=False))

    return Server("teams", on_list_prompts=list_prompts, on_get_prompt=get_prompt, on_completion=complete)


def test_completion_dropdown_under_a_prompt_form(snap_compare, tmp_path):
    from tests.snapshots.test_screens import booted
    from tests.ui.helpers import make_app, wait_for
    from tests.ui.inspector_helpers import catalog, fixed_clock, inspect, pick, type_into
    from widgets.mcp_completion import CompletionList

    async def run_before(pilot) -> None:
        await booted(pilot)
        _, screen = await inspect(pilot, ServerConfig("teams", inprocess=team_server()), "prompts",
                                  clock=fixed_clock())
        pane = catalog(screen, "prompts")
        form = await pick(pilot, pane, "lead")
        form.set_value("department", "Engineering")
        await type_into(pilot, form, "name", "")
        completions = pane.query_one(CompletionList)
        await wait_for(pilot, lambda: completions.shown and len(completions.values) == 3, message="offered")
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=(120, 34), run_before=run_before)


def test_roots_editor(snap_compare, tmp_path):
    from app.mcp.inspection import Root
    from tests.snapshots.test_screens import booted
    from tests.ui.helpers import make_app, wait_for
    from tests.ui.inspector_helpers import demo_config, fixed_clock, inspect

    async def run_before(pilot) -> None:
        await booted(pilot)
        manager, screen = await inspect(pilot, demo_config(), "roots", clock=fixed_clock())
        await manager.set_roots("demo", [Root("file:///home/ana/notes", "notes"),
                                         Root("file:///srv/shared/birds", "birds")])
        screen.query_one("#mcp-roots").show_server(manager, "demo")
        screen.query_one("#roots-input").value = "../field-trips"
        await wait_for(pilot, lambda: "birds" in str(screen.query_one("#roots-list").get_option_at_index(1).prompt),
                       message="roots shown")
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=(120, 30), run_before=run_before)


def camera_server() -> Any:
    """An SDK server whose `photo` tool answers with a caption and a 24×16 PNG (a sky over mudflats),
    which the result shows inline as half blocks."""
    import base64
    import struct
    import zlib

    import mcp.types as types
    from mcp.server import Server

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\x00" + bytes(v for x in range(24) for v in (
        (90 + 4 * y, 150 + 3 * y, 230) if y < 9 else (120 + 2 * x, 95 + y, 60))) for y in range(16))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 24, 16, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool(name="photo", description="A photo of the estuary",
                                                       input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: Any) -> Any:
        return types.CallToolResult(content=[
            types.TextContent(type="text", text="A whimbrel on the mudflat at low tide."),
            types.ImageContent(type="image", data=base64.b64encode(png).decode(), mime_type="image/png")])

    return Server("camera", on_list_tools=list_tools, on_call_tool=call_tool)


def test_image_result(snap_compare, tmp_path):
    from tests.snapshots.test_screens import booted
    from tests.ui.helpers import make_app
    from tests.ui.inspector_helpers import fixed_clock, tool_result

    async def run_before(pilot) -> None:
        await booted(pilot)
        await tool_result(pilot, ServerConfig("camera", inprocess=camera_server()), "photo", "▣ image",
                          clock=fixed_clock())
        await pilot.pause()

    assert snap_compare(make_app(tmp_path), terminal_size=(120, 30), run_before=run_before)


def test_audio_result(snap_compare, tmp_path):
    """The audio block of a real stdio server's WAV clip (tests/mcp/media_server.py): type, size, length
    and the keys that save and play it."""
    from tests.snapshots.test_screens import booted
    from tests.ui.helpers import make_app
    from tests.ui.inspector_helpers import fixed_clock, tool_result
    from tests.ui.test_mcp_inspector_audio import MEDIA

    async def run_before(pilot) -> None:
        await booted(pilot)
        await tool_result(pilot, MEDIA, "chime", "♪ audio", clock=fixed_clock())
        await pilot.pause()

    assert snap_compare(make_app(tmp_path), terminal_size=(120, 30), run_before=run_before)
