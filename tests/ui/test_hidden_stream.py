"""A workstream that streams in a hidden tab renders nothing until it is shown (or its reply ends);
its tab still says it has unread output, and nothing it streamed is lost."""

from __future__ import annotations

from tests.fake_llm.script import SlowReply
from tests.ui.helpers import booted, burst, make_app, wait_for
from widgets.tab_bar import TabBar


def shown_text(app, workstream) -> str:
    """What the workstream's view has rendered (every Markdown widget's source)."""
    view = app.main_screen.view_for(workstream.id)
    return "".join(getattr(w, "source", "") for w in view.transcript.query("Markdown"))


async def start_streaming(app, pilot, word: str):
    """Boot, send a prompt in the first tab and wait until its reply shows `word`; (workstream, view)."""
    await booted(pilot)
    first = app.workstream
    view = app.main_screen.view_for(first.id)
    view.prompt.insert("talk")
    await pilot.press("enter")
    await wait_for(pilot, lambda: word in shown_text(app, first), message="streaming started")
    return first, view


async def test_hidden_stream_is_held_and_shown_on_return(fake_openai, tmp_path):
    fake_openai.queue(SlowReply("alpha " * 400, delay=0.03, chunk_size=6))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        first, view = await start_streaming(app, pilot, "alpha")

        burst(app, "ctrl+n")  # the new tab takes the pane: the first one streams hidden
        # the new tab exists a moment before it takes the pane; what streams until then is rendered
        await wait_for(pilot, lambda: len(app.manager) == 2 and not view.shown, message="the first view hidden")
        await pilot.pause()  # a delta that was being rendered as the view was hidden finishes
        held_at = shown_text(app, first)
        await pilot.pause(0.6)
        assert first.busy, "the reply should still be streaming"
        assert shown_text(app, first) == held_at  # nothing rendered while hidden
        assert first.unread
        tab = app.main_screen.query_one(TabBar).render().plain.split("2 new workstream")[0]
        assert tab.rstrip().endswith("•")  # its tab is marked unread

        burst(app, "alt+1")  # shown again: what streamed meanwhile appears at once
        await wait_for(pilot, lambda: len(shown_text(app, first)) > len(held_at) + 30,
                       message="held text rendered on return")
        await wait_for(pilot, lambda: not first.busy, timeout=30)
        await wait_for(pilot, lambda: shown_text(app, first).count("alpha") == 400, message="the whole reply shown")


async def test_reply_that_ends_while_hidden_is_rendered_whole(fake_openai, tmp_path):
    fake_openai.queue(SlowReply("beta " * 60, delay=0.02, chunk_size=5))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        first = app.workstream
        app.main_screen.view_for(first.id).prompt.insert("talk")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "beta" in shown_text(app, first), message="streaming started")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: not first.busy, timeout=30, message="reply finished")
        await wait_for(pilot, lambda: shown_text(app, first).count("beta") == 60, message="the whole reply rendered")
        assert app.workstream is not first  # still hidden


async def test_typing_holds_streamed_text_until_the_keys_stop(fake_openai, tmp_path, monkeypatch):
    import widgets.workstream_view as workstream_view
    from widgets.prompt import PromptInput

    monkeypatch.setattr(workstream_view, "TYPING_QUIET", 30.0)  # within this test: hold until released
    monkeypatch.setattr(workstream_view, "MAX_TYPING_HOLD", 30.0)
    monkeypatch.setattr(PromptInput, "last_typed", 0.0)  # no key typed yet (earlier tests typed some)
    fake_openai.queue(SlowReply("gamma " * 300, delay=0.03, chunk_size=6))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        first, view = await start_streaming(app, pilot, "gamma")
        burst(app, *"next")  # the user starts typing the next prompt
        await wait_for(pilot, lambda: view.prompt.text == "next", message="keys echoed")
        held_at = shown_text(app, first)
        await pilot.pause(0.6)
        assert first.busy and shown_text(app, first) == held_at  # echo first: the stream waits
        assert view.prompt.text == "next"

        monkeypatch.setattr(PromptInput, "last_typed", 0.0)  # the keys stopped long ago
        view.post_message(view.CatchUp())
        await wait_for(pilot, lambda: len(shown_text(app, first)) > len(held_at), message="held text shown")
        await wait_for(pilot, lambda: not first.busy, timeout=30)
        await wait_for(pilot, lambda: shown_text(app, first).count("gamma") == 300, message="the whole reply shown")


async def test_while_typing_goes_on_held_text_comes_in_small_pieces_right_after_an_echo(
        fake_openai, tmp_path, monkeypatch):
    import widgets.workstream_view as workstream_view
    from widgets.prompt import PromptInput

    monkeypatch.setattr(workstream_view, "TYPING_QUIET", 30.0)  # the user never pauses long enough
    monkeypatch.setattr(workstream_view, "MAX_TYPING_HOLD", 0.3)
    monkeypatch.setattr(workstream_view, "ECHO_RELEASE_CHARS", 60)
    monkeypatch.setattr(PromptInput, "last_typed", 0.0)
    fake_openai.queue(SlowReply("delta " * 300, delay=0.02, chunk_size=6))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        first, view = await start_streaming(app, pilot, "delta")
        burst(app, "n")
        await wait_for(pilot, lambda: view.prompt.text == "n", message="key echoed")
        held_at = shown_text(app, first)
        await pilot.pause(0.5)  # held longer than MAX_TYPING_HOLD, but no key yet: nothing moves
        assert first.busy and shown_text(app, first) == held_at

        burst(app, "e")  # the next key: once it is painted, one piece of what was held follows it
        await wait_for(pilot, lambda: shown_text(app, first) != held_at, message="a piece shown after the echo")
        await pilot.pause(0.1)
        grown = shown_text(app, first)
        assert grown.startswith(held_at) and 0 < len(grown) - len(held_at) <= 60
        assert view.prompt.text == "ne"
        await pilot.pause(0.1)
        assert shown_text(app, first) == grown  # the rest waits for a later key (or a pause)

        monkeypatch.setattr(PromptInput, "last_typed", 0.0)  # typing stopped: everything follows
        view.post_message(view.CatchUp())
        await wait_for(pilot, lambda: not first.busy, timeout=30)
        await wait_for(pilot, lambda: shown_text(app, first).count("delta") == 300, message="the whole reply shown")
