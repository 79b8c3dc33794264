"""The window with a team's rules in the store (written by another instance): told at start and not
applied, shown in /policy with who set them, applied once accepted there (the workstream's gate decides
by them), and waiting again after the team changes them."""

from __future__ import annotations

from app.permissions import team_policy
from app.permissions.call_view import CallView
from app.storage import identity
from app.storage.store import Store
from app.tui.screens.policy import PolicyScreen
from tests.ui.helpers import make_app, screen_is, screen_text, wait_for

TEAM = 'deny = ["bash(git push *)"]\nallow = ["bash(make deploy)"]\n'


def _set_by_bob(tmp_path, text: str) -> None:
    store = Store(tmp_path / "data" / "whimbrel.db")
    identity.set_name("bob@buildbox")
    try:
        team_policy.store_text(store.engine, text)
    finally:
        identity.set_name(None)
        store.close()


def told(app) -> bool:
    """The window notified that the team's rules wait for review (where project files are announced)."""
    return any(n.message.startswith("The team's policy in the store (set by bob@buildbox) is new or changed: its "
                                    "rules do not apply here") for n in app._notifications)


def _outcome(app, command: str) -> str:
    return app.workstream.session.guard.gate.decide(CallView("bash", {"command": command}, primary="command")).outcome


async def test_team_rules_are_announced_then_applied_once_accepted_in_the_window(fake_openai, tmp_path):
    _set_by_bob(tmp_path, TEAM)
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
        await wait_for(pilot, lambda: told(app), message="the notice")
        assert _outcome(app, "make deploy") == "ask" and _outcome(app, "git push origin main") == "ask"
        app.call_later(app.permissions.open_policy_screen)
        await wait_for(pilot, lambda: screen_is(app, PolicyScreen) and "Team policy (in the store, set by "
                       "bob@buildbox)" in screen_text(app), message="the review")
        assert "deny  bash(git push *)" in screen_text(app) and "NEW OR CHANGED" in screen_text(app)
        await pilot.press("A")
        await wait_for(pilot, lambda: "Accepted the team's policy in the store" in screen_text(app), message="accepted")
        assert _outcome(app, "make deploy") == "allow" and _outcome(app, "git push origin main") == "deny"
        assert (tmp_path / "data" / "team-policy.accepted").exists()

    _set_by_bob(tmp_path, TEAM.replace("make deploy", "make release"))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
        await wait_for(pilot, lambda: told(app), message="reviewed again")
        assert _outcome(app, "make release") == "ask" and _outcome(app, "git push origin main") == "ask"
