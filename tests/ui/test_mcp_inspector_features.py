"""The inspector's deeper features against real servers: structured output checked against the output
schema, resource subscriptions with live updates, completions, the log level, roots, media, history."""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual.widgets import Button

from app.mcp.config import ServerConfig
from tests.mcp.conftest import needs_node, server_path
from tests.ui.helpers import make_app, screen_is, wait_for
from tests.ui.inspector_helpers import (EVERYTHING, attach_manager, catalog, choose, demo_config, inspect,
                                        open_inspector, pick, result_text, run_and_wait, tool_result, type_into,
                                        visible_text)

@pytest.fixture(autouse=True)
def _servers_on_path(monkeypatch):
    monkeypatch.setenv("PATH", server_path())


def weather_server() -> Any:
    """An SDK server whose `weather` tool declares an output schema and breaks it when asked to."""
    import mcp.types as types
    from mcp.server import Server

    schema = {"type": "object", "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
              "required": ["temperature", "conditions"]}

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool(
            name="weather", description="Today's weather", output_schema=schema,
            input_schema={"type": "object", "properties": {"broken": {"type": "boolean"}}})])

    async def call_tool(ctx: Any, params: Any) -> Any:
        broken = (params.arguments or {}).get("broken")
        structured = {"temperature": "warm", "humidity": 3} if broken else {"temperature": 21, "conditions": "sun"}
        return types.CallToolResult(content=[types.TextContent(type="text", text="here it is")],
                                    structured_content=structured)

    return Server("weather", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_structured_output_is_checked_against_the_output_schema(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        weather = ServerConfig("weather", inprocess=weather_server())
        _, _, tools, shown = await tool_result(pilot, weather, "weather", "matches the outputSchema")
        assert "does not match" not in shown
        tools.form.set_value("broken", True)
        shown = await run_and_wait(pilot, tools, "does not match the outputSchema")
        # the result is still shown, with every problem and where it is
        assert "here it is" in shown and '"humidity": 3' in shown and "2 problem(s)" in shown
        assert "at the top: 'conditions' is a required property" in shown
        assert "at /temperature: 'warm' is not of type 'number'" in shown


@needs_node
async def test_structured_output_of_server_everything_conforms(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        _, screen = await inspect(pilot, EVERYTHING, "tools")
        tools = catalog(screen, "tools")
        await pick(pilot, tools, "get-structured-content")
        tools.form.set_value("location", "Chicago")
        shown = await run_and_wait(pilot, tools, "structured content matches the outputSchema")
        assert '"temperature"' in shown


@needs_node
async def test_subscribe_to_a_resource_and_watch_it_update(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        manager, screen = await inspect(pilot, EVERYTHING, "resources")
        resources = catalog(screen, "resources")
        uri = "demo://resource/static/document/architecture.md"
        await pick(pilot, resources, f"r:{uri}")
        button = resources.query_one("#resource-subscribe", Button)
        assert str(button.label) == "Subscribe" and "not subscribed" in visible_text(screen)
        button.press()
        await wait_for(pilot, lambda: uri in manager.servers["everything"].inspection.subscriptions,
                       message="subscribed")
        await wait_for(pilot, lambda: str(button.label) == "Unsubscribe", message="the button follows")
        assert "waiting for notifications/resources/updated" in visible_text(screen)
        await choose(pilot, screen, "everything", "tools")
        tools = catalog(screen, "tools")
        await pick(pilot, tools, "toggle-subscriber-updates")
        await run_and_wait(pilot, tools, "Started")  # the server now sends updates every 5 s
        # the update is shown live and the resource read again, while the user looks at another tab
        await wait_for(pilot, lambda: "subscribed: 1 update(s)" in visible_text(screen)
                       or "subscribed: 2 update(s)" in visible_text(screen), timeout=30, message="an update")
        await wait_for(pilot, lambda: "text/markdown" in result_text(resources), timeout=30, message="re-read")
        # on the protocol the server speaks (2025-11-25, older than the SDK's own), as the wire shows
        state = manager.servers["everything"]
        assert state.protocol_version == "2025-11-25"

        def sent(method: str, direction: str, kind: str) -> bool:
            return any(e.method == method and e.direction == direction and e.kind == kind
                       for e in state.logs.protocol)

        assert sent("resources/subscribe", "->", "request")
        assert sent("notifications/resources/updated", "<-", "notification")
        assert sent("resources/read", "->", "request")
        await choose(pilot, screen, "everything", "resources")
        button.press()
        await wait_for(pilot, lambda: uri not in state.inspection.subscriptions, message="unsubscribed")
        await wait_for(pilot, lambda: str(button.label) == "Subscribe", message="the button follows")
        assert sent("resources/unsubscribe", "->", "request")
        assert not any(e.kind == "error" and e.method in ("resources/subscribe", "resources/unsubscribe")
                       for e in state.logs.protocol)


@needs_node
async def test_fill_a_prompt_argument_with_completion_then_get_it(tmp_path):
    from widgets.mcp_completion import CompletionList

    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        _, screen = await inspect(pilot, EVERYTHING, "prompts")
        prompts = catalog(screen, "prompts")
        form = await pick(pilot, prompts, "completable-prompt")
        completions = prompts.query_one(CompletionList)
        await type_into(pilot, form, "department", "E")
        await wait_for(pilot, lambda: completions.shown and completions.values == ["Engineering"],
                       timeout=30, message="the department offered")
        await pilot.press("down", "enter")
        assert form.raw_values()["department"] == "Engineering" and not completions.shown
        # the second argument's values depend on the first (sent as context)
        await type_into(pilot, form, "name", "")
        await wait_for(pilot, lambda: completions.shown and completions.values == ["Alice", "Bob", "Charlie"],
                       timeout=30, message="the team offered")
        await pilot.press("down", "down", "enter")
        assert form.raw_values()["name"] == "Bob"
        await run_and_wait(pilot, prompts, "Bob")
        assert "Engineering" in result_text(prompts)


@needs_node
async def test_complete_a_resource_template_variable(tmp_path):
    from widgets.mcp_completion import CompletionList

    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        _, screen = await inspect(pilot, EVERYTHING, "resources")
        resources = catalog(screen, "resources")
        form = await pick(pilot, resources, "t:demo://resource/dynamic/text/{resourceId}")
        completions = resources.query_one(CompletionList)
        await type_into(pilot, form, "resourceId", "x")  # server-everything offers only a valid id back
        await wait_for(pilot, lambda: not completions.shown, message="nothing offered for a bad id")
        form.set_value("resourceId", "")
        await pilot.press("3")
        await wait_for(pilot, lambda: completions.shown and completions.values == ["3"], timeout=30,
                       message="the id offered")
        await pilot.press("down", "enter")
        assert form.raw_values()["resourceId"] == "3"
        await wait_for(pilot, lambda: not any(w.is_running for w in app.workers if w.group.startswith("mcp-complete")),
                       message="the completion asked after the pick answered")
        assert not completions.shown  # the value just taken is not offered again
        await run_and_wait(pilot, resources, "Resource 3")


@needs_node
async def test_set_the_log_level_to_debug_and_see_the_servers_messages(tmp_path):
    from textual.widgets import Select

    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        manager, screen = await inspect(pilot, EVERYTHING, "logs")
        state = manager.servers["everything"]
        select = screen.query_one("#log-level", Select)
        assert "not set here: the server's default" in visible_text(screen)
        select.value = "debug"
        await wait_for(pilot, lambda: state.inspection.log_level == "debug", timeout=30, message="level set")
        await wait_for(pilot, lambda: "the server sends debug and above" in visible_text(screen), message="shown")
        assert any(e.method == "logging/setLevel" and e.kind == "request" for e in state.logs.protocol)
        await choose(pilot, screen, "everything", "tools")
        tools = catalog(screen, "tools")
        await pick(pilot, tools, "toggle-simulated-logging")
        await run_and_wait(pilot, tools, "Started simulated")
        await choose(pilot, screen, "everything", "logs")
        # random levels every few seconds, all of them at debug: two lines from the server itself
        await wait_for(pilot, lambda: len([e for e in state.logs.messages if e.logger != "whimbrel"]) >= 2,
                       timeout=40, message="the server's log messages")
        entry = next(e for e in state.logs.messages if e.logger != "whimbrel")
        await wait_for(pilot, lambda: f" {entry.level:<8} {entry.logger}: {entry.text}" in visible_text(screen),
                       message="each line shows its level")
        await pick(pilot, tools, "toggle-simulated-logging")
        await run_and_wait(pilot, tools, "Stopped simulated")


@needs_node
async def test_add_and_remove_roots_and_the_server_is_told(tmp_path):
    app = make_app(tmp_path)
    extra = tmp_path / "ws" / "docs"
    extra.mkdir(parents=True)
    async with app.run_test(size=(130, 45)) as pilot:
        manager, screen = await inspect(pilot, EVERYTHING, "roots")
        state = manager.servers["everything"]
        assert "(the workspace, by default)" in visible_text(screen)
        workspace_uri = (tmp_path / "ws").resolve().as_uri()
        assert workspace_uri in visible_text(screen)
        box = screen.query_one("#roots-input")
        box.focus()
        await pilot.press(*"nowhere", "enter")
        await wait_for(pilot, lambda: "is not a directory" in visible_text(screen), message="a bad root refused")
        box.value = "docs"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "sent notifications/roots/list_changed" in visible_text(screen),
                       timeout=30, message="the server told")
        assert [r.uri for r in manager.roots_of("everything")] == [workspace_uri, extra.resolve().as_uri()]
        assert any(e.method == "notifications/roots/list_changed" and e.direction == "->" for e in state.logs.protocol)
        assert state.protocol_version == "2025-11-25"
        # told of the change, the server asks for the list again: a roots/list request from it after ours
        told = max(i for i, e in enumerate(state.logs.protocol) if e.method == "notifications/roots/list_changed")
        await wait_for(pilot, lambda: any(e.method == "roots/list" and e.direction == "<-" and e.kind == "request"
                                          for e in list(state.logs.protocol)[told:]),
                       timeout=30, message="the server asked for the roots again")
        await choose(pilot, screen, "everything", "tools")
        tools = catalog(screen, "tools")
        await pick(pilot, tools, "get-roots-list")
        shown = await run_and_wait(pilot, tools, extra.resolve().as_uri())
        assert workspace_uri in shown
        await choose(pilot, screen, "everything", "roots")
        roots_list = screen.query_one("#roots-list")
        roots_list.highlighted = 0
        screen.query_one("#roots-remove").press()
        await wait_for(pilot, lambda: [r.uri for r in manager.roots_of("everything")] == [extra.resolve().as_uri()],
                       timeout=30, message="the workspace root removed")
        await wait_for(pilot, lambda: "Removed " in visible_text(screen), message="said so")
        await choose(pilot, screen, "everything", "tools")
        # the server fetches the new list when told; ask it again until it has (a fresh answer each time)
        for _ in range(30):
            tools.results.clear()
            tools._show_result(None)
            shown = await run_and_wait(pilot, tools, "URI: ")
            if f"URI: {workspace_uri}\n" not in shown + "\n":  # (the docs root's URI goes on with /docs)
                break
            await pilot.pause(0.2)
        assert f"URI: {workspace_uri}/docs" in shown and f"URI: {workspace_uri}\n" not in shown + "\n"


@needs_node
async def test_an_image_result_is_a_clear_block_and_saves_to_a_file(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        _, _, tools, shown = await tool_result(pilot, EVERYTHING, "get-tiny-image", "▣ image")
        assert "image/png" in shown and " px" in shown and "Ctrl+S" in shown
        save = tools.query_one("#tools-save", Button)
        assert save.display and str(save.label) == "Save media (1)"
        tools.option_list.focus()
        await pilot.press("ctrl+s")
        folder = tmp_path / "data" / "mcp-media"
        await wait_for(pilot, lambda: folder.exists() and any(folder.iterdir()), message="the image saved")
        [saved] = list(folder.iterdir())
        assert saved.name == "everything-get-tiny-image-1.png" and saved.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        await wait_for(pilot, lambda: f"Saved 1 file(s): {saved}" in result_text(tools), message="said where")
        await pick(pilot, tools, "echo")
        assert not tools.query_one("#tools-save", Button).display  # nothing to save for another tool


def media_server() -> Any:
    """An SDK server whose `clip` tool answers with a WAV clip and a GIF."""
    import base64

    import mcp.types as types
    from mcp.server import Server

    wav = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(28)).decode()
    gif = base64.b64encode(b"GIF89a\x20\x00\x10\x00" + bytes(20)).decode()

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool(name="clip", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: Any) -> Any:
        return types.CallToolResult(content=[types.AudioContent(type="audio", data=wav, mime_type="audio/wav"),
                                             types.ImageContent(type="image", data=gif, mime_type="image/gif")])

    return Server("media", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_audio_in_a_result_can_be_saved(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        media = ServerConfig("media", inprocess=media_server())
        _, _, tools, shown = await tool_result(pilot, media, "clip", "♪ audio")
        assert "audio/wav, 44 bytes" in shown and "image/gif, 30 bytes, 32×16 px" in shown
        tools.query_one("#tools-save", Button).press()
        folder = tmp_path / "data" / "mcp-media"
        await wait_for(pilot, lambda: folder.exists() and len(list(folder.iterdir())) == 2, message="both saved")
        assert (folder / "media-clip-1.wav").read_bytes().startswith(b"RIFF")
        assert (folder / "media-clip-2.gif").read_bytes().startswith(b"GIF89a")


async def test_the_protocol_log_shows_a_long_method_in_full(tmp_path):
    from textual.widgets import DataTable

    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        manager = attach_manager(app, demo_config())
        await manager.wait_ready("demo", 30)
        method = "notifications/tools/list_changed"
        manager.servers["demo"].logs.record("<-", {"jsonrpc": "2.0", "method": method})
        screen = await open_inspector(pilot)
        await choose(pilot, screen, "demo", "protocol")
        table = screen.query_one("#protocol-table", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0, message="the log shown")
        column = next(c for c in table.columns.values() if str(c.label) == "method")
        assert column.get_render_width(table) >= len(method) + 1


@needs_node
async def test_a_sampling_request_answered_by_hand_with_no_model(tmp_path):
    from textual.widgets import TextArea

    from app.settings.config import load_config
    from app.tui.screens.sampling import SamplingScreen
    from tests.mcp.conftest import NODE_BIN

    config_path = tmp_path / "config.toml"
    config_path.write_text(f'[mcp.servers.everything]\ncommand = "{NODE_BIN / "mcp-server-everything"}"\n'
                           'args = ["stdio"]\n')
    app = make_app(tmp_path, base_url=None, config=load_config(config_path))  # no model reachable
    async with app.run_test(size=(130, 45)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await wait_for(pilot, lambda: app.mcp.manager.status("everything")[0] == "ready", timeout=60, message="ready")
        screen = await open_inspector(pilot, clock=time.perf_counter)  # over the setup screen a new user sees
        await choose(pilot, screen, "everything", "tools")
        tools = catalog(screen, "tools")
        form = await pick(pilot, tools, "trigger-sampling-request")
        form.set_value("prompt", "name a bird")
        tools.submit()
        await wait_for(pilot, lambda: screen_is(app, SamplingScreen) and app.screen.query("#approve"),
                       timeout=30, message="sampling asked")
        dialog = app.screen
        assert "No model is configured: write the reply by hand" in visible_text(dialog)
        assert dialog.query_one("#approve", Button).disabled
        await pilot.press("w")
        reply = dialog.query_one("#sampling-reply", TextArea)
        await wait_for(pilot, lambda: reply.has_focus, message="the reply field")
        await pilot.press(*"whimbrel, and yes")  # y, n and w are letters here, not keys of the dialog
        assert reply.text == "whimbrel, and yes" and app.screen is dialog
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, message="back in the inspector")
        shown = await run_and_wait(pilot, tools, "whimbrel, and yes", timeout=30)
        assert "human (written in Whimbrel)" in shown


class BearerOnlyServer:
    """A real streamable-HTTP MCP server on 127.0.0.1 that answers 401 unless the request carries
    `Authorization: Bearer s3cret` and `X-Team: birds` (an API-key server, no OAuth)."""

    def __init__(self) -> None:
        from mcp.server.mcpserver import MCPServer
        from starlette.responses import PlainTextResponse

        from tests.mcp.oauth_server import AppThread

        server = MCPServer("keyed", log_level="WARNING")

        @server.tool(description="Say who may call.")
        def whoami() -> str:
            return "the birds team"

        inner = server.streamable_http_app()

        async def guarded(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
                if headers.get("authorization") != "Bearer s3cret" or headers.get("x-team") != "birds":
                    await PlainTextResponse("an API key is required", status_code=401)(scope, receive, send)
                    return
            await inner(scope, receive, send)

        self.thread = AppThread()
        self.thread.serve(guarded)
        self.url = f"{self.thread.base}/mcp"

    def __enter__(self) -> "BearerOnlyServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.thread.stop()


async def test_headers_and_a_bearer_token_from_the_add_server_form(tmp_path, monkeypatch):
    from app.settings.config import load_config
    from app.tui.screens.mcp_add_server import AddServerScreen

    monkeypatch.setenv("KEYED_TOKEN", "s3cret")
    config_path = tmp_path / "config.toml"
    config_path.write_text("")
    app = make_app(tmp_path)
    app.options.config_path = config_path
    with BearerOnlyServer() as keyed:
        async with app.run_test(size=(130, 45)) as pilot:
            await wait_for(pilot, lambda: app.ready.is_set())
            screen = await open_inspector(pilot)
            await pilot.press("a")
            await wait_for(pilot, lambda: screen_is(app, AddServerScreen), message="add-server form")
            form = app.screen
            form.query_one("#add-name").value = "keyed"
            form.query_one("#add-transport").value = "http"
            await pilot.pause()
            assert form.query_one("#add-bearer").display and not form.query_one("#add-env").display
            form.query_one("#add-url").value = keyed.url
            form.query_one("#add-headers").value = "X-Team birds"
            form.add()
            await wait_for(pilot, lambda: "headers are 'Name: value'" in visible_text(form), message="refused")
            form.query_one("#add-headers").value = "X-Team: birds"
            form.query_one("#add-bearer").value = "${KEYED_TOKEN}"
            form.add()
            await wait_for(pilot, lambda: app.screen is screen, message="back in the inspector")
            await wait_for(pilot, lambda: app.mcp.manager is not None and app.mcp.manager.status("keyed")[0] == "ready", timeout=60,
                           message="the keyed server accepts the headers")
            saved = load_config(config_path).mcp_servers["keyed"]
            assert saved["headers"] == {"X-Team": "birds", "Authorization": "Bearer ${KEYED_TOKEN}"}
            assert "s3cret" not in config_path.read_text()  # the secret stays in the environment
            await choose(pilot, screen, "keyed", "tools")
            tools = catalog(screen, "tools")
            await pick(pilot, tools, "whoami")
            await run_and_wait(pilot, tools, "the birds team")
            await app.mcp.manager.stop()


async def test_sign_in_to_an_oauth_server_and_follow_each_step_in_the_oauth_view(tmp_path):
    from textual.widgets import DataTable

    from app.mcp.features import ClientHooks
    from app.mcp.manager import McpManager
    from app.tui.screens.mcp_oauth import McpSignInScreen, authorization_hook
    from tests.mcp.oauth_server import OAuthMcpServer
    from tests.snapshots.test_mcp_oauth_screen import follow

    server = OAuthMcpServer().start()
    app = make_app(tmp_path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await wait_for(pilot, lambda: app.ready.is_set())
            screen = await open_inspector(pilot)
            manager = McpManager([ServerConfig("secure", transport="http", url=server.url)], data_dir=tmp_path / "d",
                                 workspace=app.options.workdir, listener=app.mcp.server_changed, refresh_interval=0,
                                 hooks=ClientHooks(authorization=authorization_hook(app, follow)))
            app.mcp.manager = manager
            manager.start()
            await wait_for(pilot, lambda: screen_is(app, McpSignInScreen), timeout=30, message="sign-in asked")
            await pilot.press("enter")  # open the browser (the test's browser signs in at once)
            await wait_for(pilot, lambda: manager.status("secure")[0] == "ready", timeout=30, message="signed in")
            await wait_for(pilot, lambda: app.screen is screen, message="back in the inspector")
            screen.show_servers()
            await choose(pilot, screen, "secure", "oauth")
            table = screen.query_one("#oauth-table", DataTable)
            await wait_for(pilot, lambda: table.row_count >= 7, message="the steps listed")
            stages = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
            assert stages[0] == "MCP request: sign-in needed"
            assert stages.index("registration") < stages.index("authorization: sign in through the browser") \
                < stages.index("token exchange (authorization code)")
            table.focus()
            table.move_cursor(row=stages.index("token exchange (authorization code)"))
            await wait_for(pilot, lambda: "grant_type = authorization_code" in visible_text(screen),
                           message="the token request shown")
            shown = visible_text(screen)
            assert '"access_token": "(redacted,' in shown and "── answer 200" in shown
            await manager.stop()
    finally:
        server.stop()


async def test_each_call_is_in_the_history_and_runs_again(tmp_path):
    from textual.widgets import OptionList, TabbedContent

    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        manager, screen = await inspect(pilot, demo_config(), "history")
        state = manager.servers["demo"]
        await wait_for(pilot, lambda: "No calls yet" in visible_text(screen), message="an empty history")
        await choose(pilot, screen, "demo", "tools")
        tools = catalog(screen, "tools")
        form = await pick(pilot, tools, "search")
        await type_into(pilot, form, "query", "curlew")
        form.set_value("exact", True)
        await run_and_wait(pilot, tools, '"query": "curlew"')
        await pick(pilot, tools, "broken")
        await run_and_wait(pilot, tools, "isError: true")
        await choose(pilot, screen, "demo", "prompts")
        prompts = catalog(screen, "prompts")
        form = await pick(pilot, prompts, "summarize")
        await type_into(pilot, form, "topic", "waders")
        await run_and_wait(pilot, prompts, "Summarize waders")
        await wait_for(pilot, lambda: len(state.inspection.history) == 3, message="three calls kept")
        await choose(pilot, screen, "demo", "history")
        await wait_for(pilot, lambda: len(screen.query_one("#history-list", OptionList).options) == 3,
                       message="three calls listed")
        listed = [str(o.prompt) for o in screen.query_one("#history-list", OptionList).options]
        assert listed[0].startswith("✔ prompt summarize") and listed[1].startswith("✖ call broken") \
            and listed[2].startswith("✔ call search")  # newest first; isError is marked
        await wait_for(pilot, lambda: "Summarize waders" in visible_text(screen), message="the newest shown")
        history = screen.query_one("#history-list", OptionList)
        history.focus()
        history.highlighted = 2
        await wait_for(pilot, lambda: '"query": "curlew"' in visible_text(screen), message="its arguments")
        await pilot.press("enter")  # run it again
        await wait_for(pilot, lambda: screen.query_one(TabbedContent).active == "tab-tools", message="its tab")
        await wait_for(pilot, lambda: len(state.inspection.history) == 4, timeout=30, message="called again")
        again = state.inspection.history[-1]
        assert again.key == "search" and again.arguments["query"] == "curlew" and again.arguments["exact"] is True
        assert tools.form.raw_values()["query"] == "curlew"
        # the history outlives the screen
        await pilot.press("escape")
        screen = await open_inspector(pilot)
        await choose(pilot, screen, "demo", "history")
        await wait_for(pilot, lambda: len(screen.query_one("#history-list", OptionList).options) == 4,
                       message="the four calls listed again")
