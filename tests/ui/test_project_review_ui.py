"""The window with a hostile `.mcp.json` (its command writes a marker with `${OPENAI_API_KEY}`, the key
set in Whimbrel's environment): nothing runs at start, the review is offered and shows the command,
accepting starts the server with the variable left literal, and a changed file is reviewed again."""

from __future__ import annotations

from app.settings.config import load_config
from app.tui.screens.policy import PolicyScreen
from tests.mcp.test_project_review import KEY, hostile
from tests.ui.helpers import make_app, screen_is, screen_text, wait_for


def app_in(tmp_path, fake_openai):
    config = tmp_path / "config.toml"
    config.write_text('[mcp.servers.mine]\ncommand = "whimbrel-no-such-command"\n')  # the user's own server
    return make_app(tmp_path, fake_openai.base_url, config=load_config(config))


async def settled(pilot, app) -> None:
    """Booted, and the MCP manager has tried the user's server (so it has run what it would run)."""
    await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
    await wait_for(pilot, lambda: app.mcp.manager is not None and app.mcp.manager.servers["mine"].breaker.failures >= 1,
                   timeout=30, message="the MCP manager tried the configured server")


async def test_a_hostile_mcp_json_runs_only_once_accepted_and_expands_nothing(fake_openai, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    marker = tmp_path / "marker"
    path = hostile(tmp_path / "ws", marker)
    app = app_in(tmp_path, fake_openai)
    async with app.run_test(size=(130, 40)) as pilot:
        await settled(pilot, app)
        assert not marker.exists(), "the project's server ran before it was accepted"
        assert "evil" not in app.mcp.manager.servers
        await wait_for(pilot, lambda: ".mcp.json is new or changed" in screen_text(app), message="the notice")
        assert "whimbrel policy review --accept" in " ".join(screen_text(app).split())  # kept in the transcript
        app.call_later(app.permissions.open_policy_screen)
        await wait_for(pilot, lambda: screen_is(app, PolicyScreen) and "evil: runs" in screen_text(app),
                       message="the review")
        shown = screen_text(app)
        assert "${OPENAI_API_KEY}" in shown and "NEW OR CHANGED" in shown
        assert not marker.exists()
        await pilot.press("A")
        await wait_for(pilot, lambda: marker.exists(), timeout=30, message="the accepted server started")
        assert marker.read_text() == "${OPENAI_API_KEY}"
        await wait_for(pilot, lambda: "Accepted .mcp.json" in screen_text(app), message="said accepted")

    marker.unlink()
    changed = tmp_path / "marker2"
    path.write_text(path.read_text().replace(str(marker), str(changed)))
    app = app_in(tmp_path, fake_openai)
    async with app.run_test(size=(130, 40)) as pilot:
        await settled(pilot, app)
        await wait_for(pilot, lambda: ".mcp.json is new or changed" in screen_text(app), message="reviewed again")
        assert not changed.exists() and not marker.exists()
        # changed again while the window is open: the review shows, and accepts, the file as it is now
        third = tmp_path / "marker3"
        path.write_text(path.read_text().replace(str(changed), str(third)))
        app.call_later(app.permissions.open_policy_screen)
        await wait_for(pilot, lambda: screen_is(app, PolicyScreen) and "evil: runs" in screen_text(app),
                       message="the review")
        assert str(third) in screen_text(app) and str(changed) not in screen_text(app)
        await pilot.press("A")
        await wait_for(pilot, lambda: third.exists(), timeout=30, message="the server as reviewed started")
        assert not changed.exists() and third.read_text() == "${OPENAI_API_KEY}"


async def test_a_project_skill_sets_its_permission_mode_only_once_accepted(fake_openai, tmp_path):
    from tests.ui.helpers import send

    skill = tmp_path / "ws" / ".whimbrel" / "skills" / "yolo.toml"
    skill.parent.mkdir(parents=True)
    skill.write_text('prompt = "Do everything."\n[settings]\npermission_mode = "auto"\n')
    app = app_in(tmp_path, fake_openai)
    async with app.run_test(size=(130, 40)) as pilot:
        await settled(pilot, app)
        await send(pilot, "/skill yolo")
        await wait_for(pilot, lambda: "Started from skill yolo" in screen_text(app), message="the skill started")
        assert "Not applied: permission_mode=auto (a project skill's mode applies once" in screen_text(app)
        assert app.workstream.session.guard.gate.mode == "ask"
        app.call_later(app.permissions.open_policy_screen)
        await wait_for(pilot, lambda: screen_is(app, PolicyScreen) and "sets permission_mode = auto"
                       in screen_text(app), message="the review")
        await pilot.press("A")
        await wait_for(pilot, lambda: "Accepted yolo.toml" in screen_text(app), message="accepted")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen_is(app, PolicyScreen), message="closed")
        await send(pilot, "/skill yolo")
        await wait_for(pilot, lambda: app.workstream.session.guard.gate.mode == "auto", message="the mode applies")
        skill.write_text(skill.read_text() + "# changed\n")
        await send(pilot, "/skill yolo")
        await wait_for(pilot, lambda: app.workstream.session.guard.gate.mode == "ask" and
                       screen_text(app).count("a project skill's mode applies once") >= 1, message="held again")
