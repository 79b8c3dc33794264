"""`whimbrel serve` in a real browser (headless Chromium): the token, a prompt, the streamed answer,
an approval, a second tab following read-only, and each tab's app process ending with its tab."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.installed import places
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.mcp.conftest import NODE_BIN, needs_node
from tests.serve.served import Tab, alive, wait_until

pytestmark = pytest.mark.timeout(300)

NOTES = "served from a browser tab\n"
FOLLOWED = "A later answer, followed by the other tab."
ANSWER = "The notes are written; the browser shows this answer as it streams, word by word."


def window_args(fake_openai, tmp_path: Path) -> list[str]:
    workdir, data_dir = places(tmp_path)
    return ["--base-url", fake_openai.base_url, "--model", "m", "--workdir", str(workdir), "--data-dir", str(data_dir)]


def new_tab(browser, served) -> Tab:
    """A tab on the served app, once its workspace is restored."""
    tab = Tab(browser.new_page())
    tab.open(served.url)
    tab.wait_for("new workstream")
    return tab


def ask(tab: Tab, prompt: str, then: str) -> None:
    """Send a prompt; wait until `then` shows."""
    tab.type(prompt)
    tab.press("Enter")
    tab.wait_for(then)


def page_opened_by(browser, click) -> Any:
    """The browser tab that `click()` opens, loaded."""
    with browser.expect_page(timeout=60_000) as opened:
        click()
    page = opened.value
    page.wait_for_load_state()
    return page


def test_the_page_needs_the_token_and_a_closed_tab_ends_its_app(browser, serve, fake_openai, tmp_path: Path) -> None:
    served = serve(*window_args(fake_openai, tmp_path))
    page = browser.new_page()
    refused = page.goto(served.base + "/")
    body = page.content()
    assert refused.status == 401
    assert "token" in page.inner_text("body")
    assert "textual" not in body.lower() and "<script" not in body and "xterm" not in body
    assert page.goto(served.base + "/?token=" + "x" * 43).status == 401
    assert not served.tab_pids(), "no app process for a refused page"

    tab = Tab(page)
    assert tab.open(served.url).status == 200
    assert page.url == served.base + "/", "the token leaves the address bar"
    tab.wait_for("Ask for work")
    tab.wait_for("◆ m ")
    cookie = next(c for c in browser.cookies() if c["name"].startswith("whimbrel_serve"))
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["value"] == served.token
    assert page.evaluate("document.cookie") == "", "no script can read the token"
    (pid,) = wait_until(served.tab_pids, 30, "the tab's app process")

    page.close()
    wait_until(lambda: not alive(pid), 60, f"the closed tab's app process {pid} to end")
    assert served.process.poll() is None, "the server goes on"


def test_prompt_streamed_answer_approval_and_a_second_tab_read_only(browser, serve, fake_openai, tmp_path: Path) -> None:
    fake_openai.queue(
        ToolCallReply(calls=[("write_file", json.dumps({"path": "notes.txt", "content": NOTES}))]),
        TextReply(ANSWER, chunk_size=3, delay=0.01),
    )
    notes = tmp_path / "work" / "notes.txt"
    served = serve(*window_args(fake_openai, tmp_path))
    first = Tab(browser.new_page())
    first.open(served.url)
    first.wait_for("new workstream")
    first.type("Please jot the plan into notes.txt")
    first.wait_for("Please jot the plan")
    first.press("Enter")
    first.wait_for("Approve tool call")
    first.wait_for(NOTES.strip())  # the write's content, shown for the approval
    assert not notes.exists(), "the write waits for the approval"
    first.type("y")
    wait_until(lambda: notes.exists() and notes.read_text() == NOTES, 60, "notes.txt written")
    first.wait_for("word by word.")
    first.wait_for("● idle")  # the turn is over (a slash command typed while it runs waits for it)
    first.type("/rewind")
    first.wait_for("/rewind")
    first.press("Enter")
    first.wait_for("Rewind “")
    first.press("Escape")
    wait_until(lambda: "Rewind “" not in first.screen(), 30, "the rewind dialog to close")

    second = Tab(browser.new_page())  # the same context: the cookie is there, no token needed
    second.open(served.base + "/")
    # a second window opens a new workstream, or the first one's tabs when their layout was saved by then
    wait_until(lambda: "new workstream" in second.screen() or "Please jot the plan" in second.screen(), 60,
               "the second tab's first screen", lambda: "; the screen:\n" + second.screen())
    if "Please jot the plan" not in second.screen():  # a new workstream: open the first tab's from /resume
        second.type("/resume")
        second.press("Enter")
        second.wait_for("Please jot the plan")
        second.press("Enter")
    second.wait_for("Read-only: this workstream is")
    second.wait_for("word by word.")
    second.wait_for("Read-only here")  # the prompt is off

    fake_openai.queue(ToolCallReply(calls=[("notify", json.dumps({"message": "Build is green"}))]),
                      TextReply(FOLLOWED, chunk_size=4, delay=0.01))
    first.type("And one more thing")
    first.press("Enter")
    first.wait_for("Whimbrel: ")  # the notification's title, in the page (which ignores OSC 9)
    first.wait_for(FOLLOWED)
    second.wait_for(FOLLOWED)  # the read-only tab follows the live one
    pids = wait_until(lambda: len(served.tab_pids()) == 2 and served.tab_pids(), 30, "two tabs' apps")

    first.page.close()
    second.page.close()
    wait_until(lambda: not any(alive(pid) for pid in pids), 60, "both tabs' app processes to end")


def test_a_link_in_a_reply_opens_in_a_new_browser_tab(browser, serve, fake_openai, tmp_path: Path) -> None:
    """Textual's web driver sends open_url to the page, which opens a tab (no browser starts on the server)."""
    target = fake_openai.base_url + "/models"
    fake_openai.queue(TextReply(f"The list is at [the models page]({target}) for now.", chunk_size=8))
    tab = new_tab(browser, serve(*window_args(fake_openai, tmp_path)))
    ask(tab, "where is the list?", then="the models page")
    page = page_opened_by(browser, lambda: tab.click_text("the models page"))
    assert page.url == target
    assert "fake-model" in page.content()  # the fake server's model list, fetched by the browser


def test_copying_reaches_the_browsers_clipboard(browser, serve, fake_openai, tmp_path: Path) -> None:
    """F7 copies the reply's code block: in a terminal an OSC 52 sequence, here the page's clipboard
    (xterm.js's clipboard addon writes what OSC 52 carries with the browser's clipboard API)."""
    browser.grant_permissions(["clipboard-read", "clipboard-write"])
    fake_openai.queue(TextReply("Try:\n\n```sh\necho copied-in-the-browser\n```\n"))
    tab = new_tab(browser, serve(*window_args(fake_openai, tmp_path)))
    ask(tab, "give me a command", then="echo copied-in-the-browser")
    assert tab.page.evaluate("() => navigator.clipboard.readText()") != "echo copied-in-the-browser"
    tab.press("F7")
    wait_until(lambda: tab.page.evaluate("() => navigator.clipboard.readText()") == "echo copied-in-the-browser",
               30, "the code block in the browser's clipboard")


@needs_node
def test_a_url_an_mcp_server_asks_to_open_opens_in_the_browser(browser, serve, fake_openai, tmp_path: Path) -> None:
    """URL elicitation (server-everything, a real MCP server): confirmed, the URL opens as a tab of the
    user's browser, not with a browser on the server's machine."""
    url = fake_openai.base_url + "/models?elicited=1"
    config = tmp_path / "config.toml"
    config.write_text(f'[tools]\ntool_search = "off"\n[mcp.servers.everything]\n'
                      f'command = "{NODE_BIN / "mcp-server-everything"}"\nargs = ["stdio"]\n')
    fake_openai.queue(ToolCallReply([("mcp__everything__trigger-url-elicitation", json.dumps({"url": url}), "u1")]),
                      TextReply("Linked."))
    tab = new_tab(browser, serve(*window_args(fake_openai, tmp_path), "--config", str(config)))

    def server_ready() -> bool:
        """Ask `/mcp status`; True once it says the server is ready (it starts with the app)."""
        tab.type("/mcp status")
        tab.press("Enter")
        try:
            return wait_until(lambda: "everything: ready" in tab.screen(), 10, "the server ready")
        except TimeoutError:
            return False

    wait_until(server_ready, 120, "server-everything ready", lambda: "; the screen:\n" + tab.screen())
    ask(tab, "link my account", then="Approve tool call")
    tab.type("y")
    tab.wait_for("Open in browser")
    tab.click_text("Open in browser")
    tab.wait_for("Yes, open it")
    page = page_opened_by(browser, lambda: tab.click_text("Yes, open it"))
    assert page.url == url and "fake-model" in page.content()
