"""A huge streamed reply costs each update the size of the update, not of the reply.

A block that keeps growing without a safe cut (one endless paragraph, a huge code block) is shown
as Markdown up to PLAIN_CHARS, then as plain text with a dim note; the Markdown parser never sees
the whole growing text again, and a key typed during a large stream is echoed while it streams.
"""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from textual.app import App, ComposeResult

from styles import STYLES_DIR
from tests.fake_llm.script import TokensReply
from tests.ui.helpers import burst, make_app, wait_for
from widgets.markdown_split import PART_CHARS, PLAIN_CHARS, PLAIN_CHUNK, PartSplitter, safe_cut
from widgets.messages import AssistantMessage
from widgets.plain_part import NOTED, note
from widgets.reply_markdown import ReplyMarkdown
from widgets.transcript import Transcript

PARAGRAPH = "word " * 40_000  # 200 KB with no line break: one endless paragraph
CODE = "```python\n" + "x = compute(1, 2)  # a line of code\n" * 6000 + "```\n\nAfter the code, prose again.\n"


class TranscriptApp(App):
    CSS_PATH = [STYLES_DIR / "transcript.tcss"]

    def compose(self) -> ComposeResult:
        yield Transcript()


@pytest.fixture
def parsed(monkeypatch) -> list[int]:
    """Characters handed to markdown-it's parser, per call, while the test runs."""
    sizes: list[int] = []
    original = MarkdownIt.parse

    def counting(self, src, env=None):
        sizes.append(len(src))
        return original(self, src, env)

    monkeypatch.setattr(MarkdownIt, "parse", counting)
    return sizes


def classes_of(part) -> set[str]:
    """A part's CSS classes, whether it is a widget or dormant (a PartSource)."""
    return set(part.classes.split()) if isinstance(part.classes, str) else set(part.classes)


async def stream(app: App, text: str, piece: int, reply_text=None) -> AssistantMessage:
    """`text` appended to a new reply in `piece`-sized updates, as the bridge would (`reply_text`: the
    engine's own text of the reply, as the workstream view hands it over from AssistantStarted)."""
    transcript = app.query_one(Transcript)
    message = await transcript.start_assistant()
    message.reply_text = reply_text
    for start in range(0, len(text), piece):
        await message.append_content(text[start:start + piece])
        transcript.follow()
    await message.finish()
    return message


@pytest.mark.parametrize("text", [PARAGRAPH, CODE], ids=["paragraph", "code"])
async def test_parsing_stays_bounded_as_a_block_grows(parsed, text) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = await stream(app, text, 1000)
        await pilot.pause()
        assert message.shown_text == text == message.content
        assert max(parsed) <= PLAIN_CHARS + 1000  # no parse of the whole growing block
        assert sum(parsed) <= 2 * len(text)  # was ~100x the reply: every update re-parsed it all
        parts = [(classes_of(part), len(part.source)) for part in message.parts]  # widgets or dormant
        assert len(message.markdown.source) <= PLAIN_CHARS
        assert all(size <= PLAIN_CHARS for classes, size in parts if "assistant-plain" not in classes)
        plain = [(classes, size) for classes, size in parts if "assistant-plain" in classes]
        assert plain and all(size <= PLAIN_CHUNK for _, size in plain)
        assert [NOTED in classes for classes, _ in plain].count(True) == 1


async def test_markdown_resumes_after_a_huge_code_block() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)):
        message = await stream(app, CODE, 4096)
        last = message.parts[-1]
        assert isinstance(last, ReplyMarkdown) and last.source == "After the code, prose again.\n"


async def test_the_note_says_the_rest_is_plain_text() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = await stream(app, PARAGRAPH[:PLAIN_CHARS + 3000], 2000)
        noted = next(part for part in message.parts if part.has_class(NOTED))
        transcript = app.query_one(Transcript)
        await pilot.pause()
        transcript.scroll_to(y=noted.virtual_region.y - 2, animate=False, immediate=True)  # the user scrolls up
        await pilot.pause()
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        assert any(note() in line for line in lines), "\n".join(lines)
        assert any("word word" in line for line in lines)


def test_splitter_places_every_character_once_whatever_the_updates() -> None:
    text = "Intro.\n\n" + PARAGRAPH[:3 * PLAIN_CHARS] + "\n\nBack to prose.\n\n" + "A paragraph. " * 400
    for piece in (7, 999, 70_000):
        splitter = PartSplitter()
        steps = [step for start in range(0, len(text), piece) for step in splitter.feed(text[start:start + piece])]
        assert "".join(step.text for step in steps) == text
        kinds = [step.kind for step in steps if step.new]
        assert "markdown" in kinds[kinds.index("plain"):]  # fell back, then came back at the next cut
        assert all(step.text for step in steps if step.new)  # no part is opened empty
        assert steps[-1].kind == "markdown"


def test_safe_cut_matches_the_incremental_scanner() -> None:
    text = "para\n\n```\ncode\n\nInside fence\n```\n\nAfter fence\n\n" + "x" * PART_CHARS + "\n\nEnd"
    assert safe_cut(text) == text.rindex("End")
    assert safe_cut("```\n\nStill code") is None


async def test_a_key_is_echoed_while_a_large_reply_streams(fake_openai, tmp_path) -> None:
    """A 2 MB single paragraph streams in large chunks; a key typed meanwhile shows in the prompt
    before the reply has finished (waiting on conditions, not on time)."""
    fake_openai.queue(TokensReply(count=2000, token="word " * 200, delay=0.005))  # >= 10 s
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
        view = app.main_screen.view_for(app.focused_id)
        view.prompt.insert("stream")
        await pilot.press("enter")

        def shown() -> int:
            replies = view.transcript.query_children(AssistantMessage)
            return len(replies.last().content) if replies else 0

        await wait_for(pilot, lambda: shown() > PLAIN_CHARS, timeout=60, message="the reply is past the plain-text limit")
        burst(app, "q")
        await wait_for(pilot, lambda: view.prompt.text == "q", timeout=30, message="the key's echo")
        assert app.workstream.state != "idle"  # echoed while the reply still streams
        await wait_for(pilot, lambda: app.workstream.state == "idle", timeout=300, message="the reply ends")
        assert shown() == 2000 * 1000


async def test_a_huge_stored_reply_is_shown_in_parts_never_parsed_whole(parsed) -> None:
    """A resumed conversation with a 200 KB reply: shown slice by slice like a stream (parts, the
    plain-text fallback), so neither the parser nor the UI takes the whole reply at once."""
    from app.vocabulary.messages import Message

    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        await transcript.show_history([Message(role="user", content="go"),
                                       Message(role="assistant", content=PARAGRAPH + "\n\nThe end.")])
        message = transcript.query_children(AssistantMessage).last()
        assert message.content == PARAGRAPH + "\n\nThe end."  # what is still to be shown counts too
        await wait_for(pilot, lambda: message.shown_text == PARAGRAPH + "\n\nThe end.", timeout=120,
                       message="the whole stored reply is shown")
        assert max(parsed) <= PLAIN_CHARS + AssistantMessage.REPLAY_SLICE
        assert any("assistant-plain" in classes_of(part) for part in message.parts)
        await wait_for(pilot, lambda: "The end." in "\n".join(
            strip.text for strip in app.screen._compositor.render_strips()), message="its end on screen")


async def test_a_long_reply_is_held_once_and_its_dormant_parts_keep_no_per_line_state() -> None:
    """What a streamed reply leaves behind is bounded by its text (a 10 MB reply grew the app
    by 10x its size): the transcript holds each character once, split over the reply's parts (widgets
    or dormant sources), no part is a copy of another, few widgets stay mounted, and the tall blank
    stand-in for the dormant parts keeps no set of its dirty lines (one int per line of the reply)."""
    from textual.widget import Widget

    from widgets.dormant import DormantParts
    from widgets.textual_internals import dirty_lines

    text = PARAGRAPH * 4  # 800 KB, one endless paragraph: a dozen plain parts, most of them dormant
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = await stream(app, text, 16_000)
        transcript = app.query_one(Transcript)
        # Settling reads the layout (scroll_y, each part's region): under load the last parts may not be
        # laid out yet, nor the anchored view moved to the end, when the stream's last update returns.
        await wait_for(pilot, lambda: transcript.max_scroll_y > 5000 and transcript.scroll_y >= transcript.max_scroll_y,
                       message="the reply laid out and the view at its end")
        await transcript.settle_parts()
        await wait_for(pilot, lambda: len(transcript.query(DormantParts)) == 1, message="the parts above the view dormant")
        sources = [message.markdown.source, *(part.source for part in message.parts)]
        assert "".join(sources) == text and sum(map(len, sources)) == len(text)
        assert len({id(source) for source in sources if source}) == len([s for s in sources if s])
        (dormant,) = transcript.query(DormantParts)
        await wait_for(pilot, lambda: dormant.outer_size.height > 5000, message="the stand-in laid out, reply-tall")
        assert len(dormant.parts) >= len(text) // PLAIN_CHUNK - 3
        transcript.refresh()  # a refresh of the tall stand-in marks all of its lines dirty in Textual's cache
        dormant.refresh()
        await pilot.pause()
        assert dirty_lines(dormant) == 0
        assert len([w for w in message.parts if isinstance(w, Widget)]) <= 10, "only the parts near the view"


async def streamed_and_settled(app: App, pilot, text: str, reply_text=None) -> AssistantMessage:
    """`text` streamed as a new reply, laid out with the view at its end and its far parts dormant."""
    message = await stream(app, text, 16_000, reply_text)
    await settled(app, pilot)
    return message


async def settled(app: App, pilot) -> None:
    """Once the streamed reply is laid out with the view at its end, its far parts put to sleep."""
    from widgets.dormant import DormantParts

    transcript = app.query_one(Transcript)
    await wait_for(pilot, lambda: transcript.max_scroll_y > 5000 and transcript.scroll_y >= transcript.max_scroll_y,
                   message="the reply laid out and the view at its end")
    await transcript.settle_parts()
    await wait_for(pilot, lambda: any(len(d.parts) >= 2 for d in transcript.query(DormantParts)),
                   message="the parts above the view dormant")  # (of a reply of 800 KB or more, 2 or more)


async def held_by_reply(app: App, pilot, text: str, reply_text=None) -> tuple[int, AssistantMessage]:
    """(bytes still allocated once `text` streamed, settled and its garbage collected, the reply);
    `text` itself was allocated before the count starts, as the engine holds it."""
    import gc
    import tracemalloc

    await stream(app, PARAGRAPH[:PLAIN_CHARS + 5000], 4000)  # imports, styles and caches warmed first
    await pilot.pause()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        message = await streamed_and_settled(app, pilot, text, reply_text)
        await pilot.pause()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before, message
    finally:
        tracemalloc.stop()


@pytest.mark.loop_held_known("the test measures memory with full collections on the loop")
async def test_a_long_reply_takes_about_its_own_size_in_memory() -> None:
    """Once its garbage is collected, the transcript holds little more than a long reply's text
    (each plain part kept its text a second time, as its Content, with every wrapped line
    rendered, and Textual's cached list of displayed children kept parts put to sleep alive)."""
    text = PARAGRAPH * 5  # 1 MB, one endless paragraph
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        held, _ = await held_by_reply(app, pilot, text)
        # 1.8 bytes a character here (the text once; the rest is the few parts on screen, their rendered
        # lines and the layout); 6 before the plain parts were rebuilt
        assert held < 2.5 * len(text), f"{held / len(text):.2f} bytes held per character of the reply"


@pytest.mark.loop_held_known("the test measures memory with full collections on the loop")
async def test_a_long_reply_the_engine_holds_is_not_held_again_by_its_dormant_parts() -> None:
    """When the reply's text can be read from the engine (AssistantStarted.reply_text), the parts that
    went dormant keep where their text lies in it, not a copy: the transcript then holds only the parts
    near the view beyond the engine's string (the UI's copy was 1x the reply again). Scrolled
    back, the woken parts show that text."""
    text = PARAGRAPH * 10 + "\n\nThe end."  # 2 MB, one endless paragraph: the engine's string of the reply
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        held, message = await held_by_reply(app, pilot, text, reply_text=lambda: text)
        # 0.5 bytes a character here (the parts near the view and the layout), up to 0.95 seen on a loaded
        # machine (more parts still awake when it settles); 1.8 with a copy in the parts
        assert held < 1.3 * len(text), f"{held / len(text):.2f} bytes held per character of the reply"
        assert message.content == text
        transcript = app.query_one(Transcript)
        transcript.scroll_to(y=0, animate=False, immediate=True)  # back to the start of the reply
        await pilot.pause()
        await transcript.settle_parts()
        await wait_for(pilot, lambda: "word word" in "\n".join(
            strip.text for strip in app.screen._compositor.render_strips()), message="its start on screen again")


async def test_parts_put_to_sleep_hold_no_text_while_they_wait_to_be_collected() -> None:
    """The app defers full garbage collections until it is idle (app/runtime/idle_gc.py), and a removed widget
    lives on in reference cycles until one runs: the plain parts a streaming reply put to sleep must not
    keep their text meanwhile (a 10 MB reply kept it all a second time until it ended)."""
    import gc
    import weakref

    from widgets.plain_part import PlainPart

    text = PARAGRAPH * 4  # 800 KB: three plain parts, the first two put to sleep
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        gc.disable()  # as between the app's idle collections: cycles are not collected
        try:
            message = await stream(app, text, 16_000, reply_text=lambda: text)
            made = [weakref.ref(part) for part in message.parts if isinstance(part, PlainPart)]
            await settled(app, pilot)
            removed = [part for ref in made if (part := ref()) is not None and not part.is_attached]
            assert sum(len(part.source) for part in removed) == 0, "characters still held by removed parts"
        finally:
            gc.enable()
        assert message.content == text


PROSE = "".join(("word " * 20) + ("\n\n" if (i + 1) % 19 == 0 else "") for i in range(8_000))  # 800 KB
# of ordinary paragraphs of 1.9 KB, as a model writes (and as benchmarks/workstreams.py --huge streams them)


async def test_markdown_parts_put_to_sleep_hold_no_text_while_they_wait_to_be_collected() -> None:
    """A reply of ordinary paragraphs becomes hundreds of Markdown parts, each put to sleep soon after
    it streamed in; a removed part lives on in reference cycles until a full collection, which the app
    defers while output streams. Meanwhile it must not keep its text: its source, its blocks' tokens
    and their contents were three to four copies of the reply waiting to be collected."""
    import gc
    import weakref

    from textual.widgets._markdown import MarkdownBlock

    def text_held(node) -> int:
        """Characters a (removed) Markdown part or block still holds."""
        held = len(getattr(node, "_markdown", "") or "") + len(node._initial_markdown or "") \
            if isinstance(node, ReplyMarkdown) else 0
        if isinstance(node, MarkdownBlock):
            held += len(node._content.plain) + sum(len(token.content) for token in (node._token, node._inline_token)
                                                   if token is not None)
        return held

    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        gc.disable()  # as between the app's idle collections: cycles are not collected
        try:
            message = await stream(app, PROSE, 16_000, reply_text=lambda: PROSE)
            made = [weakref.ref(node) for part in message.parts if isinstance(part, ReplyMarkdown)
                    for node in part.walk_children(with_self=True)]
            await settled(app, pilot)
            removed = [node for ref in made if (node := ref()) is not None and not node.is_attached]
            assert len(removed) > 20, "parts were put to sleep"
            assert sum(text_held(node) for node in removed) == 0, "characters still held by removed parts"
        finally:
            gc.enable()
        assert message.content == PROSE
        transcript = app.query_one(Transcript)
        transcript.scroll_to(y=0, animate=False, immediate=True)  # woken again, they show their text
        await pilot.pause()
        await transcript.settle_parts()
        await wait_for(pilot, lambda: "word word" in "\n".join(
            strip.text for strip in app.screen._compositor.render_strips()), message="its start on screen again")


async def test_a_long_reply_is_parsed_by_one_parser() -> None:
    """Textual's Markdown made a markdown-it parser for every append: with linkify's patterns compiled
    each time, ~40 KB of cyclic garbage per append, thousands of appends over a long reply."""
    made: list[int] = []
    original = MarkdownIt.__init__

    def counting(self, *args, **kwargs):
        made.append(1)
        original(self, *args, **kwargs)

    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        MarkdownIt.__init__ = counting
        try:
            message = await stream(app, PROSE[:200_000], 2_000)
            await pilot.pause()
        finally:
            MarkdownIt.__init__ = original
        assert message.shown_text == PROSE[:200_000]
        assert len(made) <= 1, f"{len(made)} parsers made for one reply"


@pytest.mark.loop_held_known("the test runs a full collection on the loop before it measures (1.4 s in a full run)")
async def test_parts_put_to_sleep_are_freed_without_waiting_for_a_full_collection() -> None:
    """While output streams the app runs young garbage collections only (app/runtime/idle_gc.py). A part
    put to sleep, with its blocks, was freed only by a full one: its styles point back at it, and each
    frame's arrange kept every widget it placed in a reference cycle that the young collections passed
    on to the oldest generation. A 10 MB reply of paragraphs piled up thousands of dead widgets that
    way, and the memory they had filled stayed scattered once they were collected (settled RSS about
    4x the reply). Now nothing keeps them: they are gone once the young collections have run."""
    import gc
    import weakref

    from textual.widget import Widget

    from app.runtime.idle_gc import NEVER

    young, middle, old = gc.get_threshold()
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        gc.collect()
        gc.set_threshold(young, middle, NEVER)  # as while the app streams: no full collection
        try:
            message = await transcript.start_assistant()
            message.reply_text = lambda: PROSE
            made: dict[int, weakref.ref] = {}
            for start in range(0, len(PROSE), 16_000):
                await message.append_content(PROSE[start:start + 16_000])
                transcript.follow()
                made.update((id(node), weakref.ref(node)) for part in message.parts[-3:] if isinstance(part, Widget)
                            for node in part.walk_children(with_self=True))
            await message.finish()
            await settled(app, pilot)
            await pilot.pause()  # a layout since the last parts went to sleep: the screen's map no longer has them
            gc.collect(1)  # the young generations only, as the app collects them all the time
            alive = sum(1 for ref in made.values() if ref() is not None and not ref().is_attached)
            assert len(made) > 200, "parts and their blocks were made"
            assert alive == 0, f"{alive} widgets removed from the screen are still alive"
        finally:
            gc.set_threshold(young, middle, old)
        assert message.content == PROSE
        transcript.scroll_to(y=0, animate=False, immediate=True)  # woken again, they show their text
        await pilot.pause()
        await transcript.settle_parts()
        await wait_for(pilot, lambda: "word word" in "\n".join(
            strip.text for strip in app.screen._compositor.render_strips()), message="its start on screen again")
