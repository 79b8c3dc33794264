"""MCP resources as @-mentions, against a real server (server-everything over stdio): `@everything:`
lists its resources, and a mentioned resource is read and attached to the message the model gets."""

from __future__ import annotations

from app.settings.config import load_config
from app.mentions.resources import resource_mentions
from tests.fake_llm.script import TextReply
from tests.mcp.conftest import NODE_BIN, needs_node
from tests.ui.helpers import make_app, screen_text, wait_for
from widgets.mention_suggestions import MentionSuggestions

pytestmark = needs_node


async def test_a_resource_mention_completes_and_is_attached(fake_openai, tmp_path):
    config_path = tmp_path / "config.toml"
    config_path.write_text(f'[mcp.servers.everything]\ncommand = "{NODE_BIN / "mcp-server-everything"}"\n'
                           'args = ["stdio"]\n')
    fake_openai.queue(TextReply("Read it."))
    app = make_app(tmp_path, fake_openai.base_url, config=load_config(config_path))
    async with app.run_test(size=(120, 34)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await wait_for(pilot, lambda: app.mcp.manager.status("everything")[0] == "ready" and resource_mentions(app.mcp.manager),
                       timeout=60, message="the server's resources are listed")
        first = resource_mentions(app.mcp.manager)[0]
        view = app.main_screen.view_for(app.focused_id)
        await pilot.press(*"summarize @everything:")
        suggestions = view.query_one(MentionSuggestions)
        await wait_for(pilot, lambda: first in suggestions.matches, message="resources offered")
        view.prompt.text = f"summarize @{first}"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Read it." in screen_text(app))
        assert f"📎 {first}" in screen_text(app)
    sent = fake_openai.requests[-1]["messages"][-1]["content"]
    assert f'<attached-file path="{first}"' in sent and "could not read" not in sent
