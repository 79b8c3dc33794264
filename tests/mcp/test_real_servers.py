"""Real servers from PyPI (mcp-server-time, -git, -fetch) and npm (server-everything, stdio and HTTP).

Each test starts its server once and checks several things, so the suite stays quick.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from app.mcp.config import ServerConfig
from app.mcp.features import ClientHooks, ElicitationResponse, SamplingResponse
from app.mcp.manager import McpManager
from tests.mcp.conftest import NODE_BIN, needs_node, require, server_path
from tests.subprocesses import stopped_at_exit
from tools.context import ToolContext


def manager(*configs, **kw):
    kw.setdefault("refresh_interval", 0)
    kw.setdefault("workspace", Path.cwd())
    return McpManager(list(configs), **kw)


async def test_time_server():
    require("mcp-server-time")
    m = manager(ServerConfig("time", command="mcp-server-time", args=["--local-timezone", "UTC"]))
    m.start()
    try:
        state = await m.wait_ready("time", 60)
        assert [s.name for s in m.tool_specs()] == ["mcp__time__get_current_time", "mcp__time__convert_time"]
        assert state.server_info["name"] == "mcp-time" and state.protocol_version
        text, is_error = await m.call_tool("time", "convert_time", {
            "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"})
        assert not is_error and "21:00" in text
        text, is_error = await m.call_tool("time", "get_current_time", {"timezone": "Not/AZone"})
        assert is_error and "Not/AZone" in text  # a tool error goes back as text
        assert state.breaker.failures == 0 and m.status("time")[0] == "ready"
        assert await m.ping("time") > 0
    finally:
        await m.stop()


async def test_git_server_on_a_temp_repo(tmp_path):
    require("mcp-server-git")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "commit", "-q", "--allow-empty", "-m", "first commit"]):
        subprocess.run(cmd, cwd=repo, check=True, env=env)
    (repo / "new.txt").write_text("hello\n")
    m = manager(ServerConfig("git", command="mcp-server-git", args=["--repository", str(repo)]), workspace=repo)
    m.start()
    try:
        await m.wait_ready("git", 60)
        names = [s.name for s in m.tool_specs()]
        assert "mcp__git__git_status" in names and "mcp__git__git_log" in names and len(names) >= 10
        specs = {s.name: s for s in m.tool_specs()}
        ctx = ToolContext(workspace=repo)
        status = await specs["mcp__git__git_status"].implementation({"repo_path": str(repo)}, ctx)
        assert "new.txt" in status
        log = await specs["mcp__git__git_log"].implementation({"repo_path": str(repo)}, ctx)
        assert "first commit" in log
    finally:
        await m.stop()


@pytest.fixture
def local_site(tmp_path):
    (tmp_path / "page.html").write_text("<html><body><h1>Whimbrel test page</h1><p>Curlew facts.</p></body></html>")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(tmp_path)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


READABILITY_INSTALL = ("npm install --prefix \"$(.venv/bin/python -c 'import readabilipy; "
                       "print(readabilipy.__path__[0])')/javascript\"")


@pytest.fixture(scope="session")
def readability_installed() -> None:
    """mcp-server-fetch's readabilipy runs `npm install` on first use when its JavaScript dependencies
    are absent (from the network, onto the MCP stdio channel): the README's test command installs
    them up front, and without them the test skips rather than install anything."""
    try:
        import readabilipy
    except ImportError:
        pytest.skip("mcp-server-fetch is not installed (pip install -e '.[test]')")
    javascript = Path(readabilipy.__file__).parent / "javascript"
    if not (javascript / "node_modules").is_dir():
        pytest.skip(f"readabilipy's JavaScript dependencies are absent from {javascript}: "
                    f"run `{READABILITY_INSTALL}` (the README's test command does)")


async def test_fetch_server_against_a_local_site(local_site, readability_installed):
    require("mcp-server-fetch")
    m = manager(ServerConfig("fetch", command="mcp-server-fetch", args=["--allow-private-ips", "--ignore-robots-txt"]))
    m.start()
    try:
        state = await m.wait_ready("fetch", 60)
        assert [s.name for s in m.tool_specs()][0] == "mcp__fetch__fetch"
        assert [p.name for p in state.prompts] == ["fetch"]
        text, is_error = await m.call_tool("fetch", "fetch", {"url": f"{local_site}/page.html"})
        assert not is_error and "Whimbrel test page" in text and "Curlew facts." in text
        prompt = await m.get_prompt("fetch", "fetch", {"url": f"{local_site}/page.html"})
        assert "Whimbrel test page" in str(prompt)
        assert "use_prompt" in [s.name for s in m.tool_specs()]
    finally:
        await m.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Recorder:
    """Hooks that answer sampling and elicitation and remember what was asked."""

    def __init__(self):
        self.sampling = []
        self.elicitation = []

    async def sample(self, request):
        self.sampling.append(request)
        return SamplingResponse("forty-two", model="fake-model")

    async def elicit(self, request):
        self.elicitation.append(request)
        return ElicitationResponse("accept", {"name": "Ann"})

    def hooks(self):
        return ClientHooks(self.sample, self.elicit)


async def exercise_everything(m: McpManager, recorder: Recorder, *, announces_tools: bool) -> None:
    state = await m.wait_ready("everything", 60)
    assert len(state.resources) >= 7 and len(state.templates) >= 2 and len(state.prompts) >= 2
    names = [s.name for s in m.tool_specs()]
    for tool in ("echo", "trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"):
        assert f"mcp__everything__{tool}" in names
    assert names[-2:] == ["read_resource", "use_prompt"]
    # resources, templates, prompts
    text = await next(s for s in m.tool_specs() if s.name == "read_resource").implementation(
        {"server": "everything", "uri": state.resources[0].uri}, None)
    assert len(text) > 20
    dynamic = state.templates[0].uri_template.replace("{resourceId}", "3")
    assert "3" in str(await m.read_resource("everything", dynamic))
    args_prompt = next(p for p in state.prompts if p.arguments)
    filled = {a.name: "Paris" for a in args_prompt.arguments}
    assert "Paris" in str(await m.get_prompt("everything", args_prompt.name, filled))
    catalog = m.catalog_text()
    assert "MCP resources" in catalog and "MCP prompts" in catalog and "(template)" in catalog
    # sampling and elicitation through the hooks
    text, _ = await m.call_tool("everything", "trigger-sampling-request", {"prompt": "meaning of life", "maxTokens": 20})
    assert "forty-two" in text and recorder.sampling[0].server == "everything"
    assert "meaning of life" in recorder.sampling[0].messages[0]["text"]
    text, _ = await m.call_tool("everything", "trigger-elicitation-request", {})
    assert "Ann" in text and recorder.elicitation[0].schema["type"] == "object"
    # roots: the workspace
    text, _ = await m.call_tool("everything", "get-roots-list", {})
    assert m.workspace.as_uri() in text
    # progress on the tool card
    lines = []
    text, _ = await m.call_tool("everything", "trigger-long-running-operation", {"duration": 0.3, "steps": 3},
                                on_output=lines.append)
    assert "completed" in text.lower() and lines[-1].startswith("progress 3/3")
    # logging
    await m.call_tool("everything", "toggle-simulated-logging", {})
    for _ in range(150):
        if any(e.logger != "whimbrel" for e in state.logs.messages):
            break
        await asyncio.sleep(0.05)
    assert any(e.logger != "whimbrel" for e in state.logs.messages)
    methods = [(e.kind, e.method) for e in state.logs.protocol]
    if announces_tools:
        # list_changed: over stdio the server announces its tools after the handshake (a burst of
        # notifications); the manager re-listed them once the burst settled
        assert methods.count(("notification", "notifications/tools/list_changed")) >= 2
        assert methods.count(("request", "tools/list")) == 2
    assert any(e.elapsed_ms is not None for e in state.logs.protocol)


@needs_node
async def test_everything_over_stdio():
    recorder = Recorder()
    m = manager(ServerConfig("everything", command="mcp-server-everything", args=["stdio"]), hooks=recorder.hooks())
    m.start()
    try:
        await exercise_everything(m, recorder, announces_tools=True)
    finally:
        await m.stop()


@needs_node
async def test_everything_over_streamable_http():
    port = free_port()
    proc = subprocess.Popen([str(NODE_BIN / "mcp-server-everything"), "streamableHttp"],
                            env={**os.environ, "PATH": server_path(), "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with stopped_at_exit(proc):
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        recorder = Recorder()
        m = manager(ServerConfig("everything", transport="http", url=f"http://127.0.0.1:{port}/mcp"),
                    hooks=recorder.hooks())
        m.start()
        try:
            await exercise_everything(m, recorder, announces_tools=False)
        finally:
            await m.stop()
        # the default hooks decline sampling with a clear message
        plain = manager(ServerConfig("everything", transport="http", url=f"http://127.0.0.1:{port}/mcp"))
        plain.start()
        try:
            await plain.wait_ready("everything", 60)
            text, is_error = await plain.call_tool("everything", "trigger-sampling-request", {"prompt": "x"})
            assert "declined the sampling request" in text
            text, _ = await plain.call_tool("everything", "trigger-elicitation-request", {})
            assert "decline" in text.lower()
        finally:
            await plain.stop()
