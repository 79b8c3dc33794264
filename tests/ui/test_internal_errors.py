"""Internal errors reach the user as words, and the log file in the data dir, secrets masked.

The case found with huge replies: a server that streams even when asked for one JSON body made the auto-title
call fail with `_auto_title failed: AttributeError: 'str' object has no attribute 'choices'` in a toast.
"""

from __future__ import annotations

from app.providers.base import ModelSettings
from tests.hostile.model_fixtures import hostile_model, hostile_model_session  # noqa: F401
from tests.ui.helpers import make_app, screen_text, submit, wait_for

SECRET = "sk-test-0123456789abcdef"


def toasts(app) -> list[str]:
    return [n.message for n in app._notifications]


def hostile_app(server, tmp_path, **options):
    settings = ModelSettings(model="hostile-model", base_url=server.base_url, api_key=SECRET, context_window=32000)
    return make_app(tmp_path, settings=settings, **options)


async def test_a_reply_that_is_not_json_never_shows_python_text(hostile_model, tmp_path):
    app = hostile_app(hostile_model, tmp_path, auto_title=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await submit(pilot, "hello there")
        await wait_for(pilot, lambda: "You said: hello there" in screen_text(app), message="the reply")
        await wait_for(pilot, lambda: len(hostile_model.seen) == 2, message="the title request")
        await wait_for(pilot, lambda: not [w for w in app.workers if w.group == "titles" and w.is_running],
                       message="the title worker to end")
        await pilot.pause()
        assert not [t for t in toasts(app) if "Error" in t or "failed" in t], toasts(app)
        assert app.workstream.title == "hello there"  # the provisional title stays


async def test_an_unexpected_failure_is_told_in_words_and_logged_without_secrets(hostile_model, tmp_path):
    app = hostile_app(hostile_model, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot")

        async def broken() -> None:  # a bug somewhere in a background job
            raise KeyError(f"choices for Bearer {SECRET}")

        app.run_worker(broken(), group="titles", exit_on_error=False)
        log = tmp_path / "data" / "whimbrel.log"
        await wait_for(pilot, lambda: any("Naming the workstream failed" in t for t in toasts(app)),
                       message="the failure in words")
        shown = next(t for t in toasts(app) if "Naming the workstream failed" in t)
        assert shown == f"Naming the workstream failed because of an internal error; the details are in {log}."
        written = log.read_text()
        assert "Naming the workstream failed" in written and "Traceback" in written and "KeyError" in written
        assert SECRET not in written and "[redacted]" in written
