"""Images: /image PATH and a pasted path attach a real image to the next message, which the model
gets as an image part (OpenAI) and the store keeps; a model without vision refuses with the reason;
not-an-image and missing files are explained; the transcript shows a block with name and size."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

from app.mentions.images import load_image, media_type, pasted_image_path
from app.providers.base import ModelSettings
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, make_app, paste, screen_text, submit, wait_for


def png(path: Path) -> bytes:
    """A real 1x1 PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")
    path.write_bytes(data)
    return data


def vision_app(tmp_path: Path, base_url: str, vision: bool):
    settings = ModelSettings(model="fake-model", base_url=base_url, api_key="x", context_window=32000,
                             capabilities={"vision": vision})
    return make_app(tmp_path, settings=settings)


def test_images_are_recognised_by_their_bytes_and_dropped_paths_are_read(tmp_path):
    image = tmp_path / "shot one.png"
    data = png(image)
    assert load_image(image)["data"] == base64.b64encode(data).decode()
    assert media_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp" and media_type(b"hello") is None
    assert pasted_image_path("'" + str(image) + "'", tmp_path) == image
    assert pasted_image_path(str(image).replace(" ", "\\ "), tmp_path) == image
    assert pasted_image_path("file://" + str(image).replace(" ", "%20"), tmp_path) == image
    assert pasted_image_path("shot one.png is nice", tmp_path) is None


async def test_an_image_goes_with_the_next_message_and_is_stored(fake_openai, tmp_path):
    (tmp_path / "ws").mkdir()
    data = png(tmp_path / "ws" / "diagram.png")
    fake_openai.queue(TextReply("A tiny green pixel."))
    app = vision_app(tmp_path, fake_openai.base_url, vision=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await submit(pilot, "/image diagram.png")
        await wait_for(pilot, lambda: "goes with your next message" in screen_text(app))
        await submit(pilot, "what is this?")
        await wait_for(pilot, lambda: "A tiny green pixel." in screen_text(app))
        assert f"🖼 diagram.png · {len(data)} B · image/png" in screen_text(app)
        stored = await app.store.load_messages(app.workstream.id)
    content = fake_openai.requests[-1]["messages"][-1]["content"]
    assert content[0]["type"] == "text" and content[0]["text"].startswith("what is this?")
    assert content[1] == {"type": "image_url",
                          "image_url": {"url": "data:image/png;base64," + base64.b64encode(data).decode()}}
    assert stored[0].raw["images"][0]["name"] == "diagram.png"


async def test_a_pasted_image_path_attaches_instead_of_typing(fake_openai, tmp_path):
    (tmp_path / "ws").mkdir()
    png(tmp_path / "ws" / "drop.png")
    app = vision_app(tmp_path, fake_openai.base_url, vision=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await booted(pilot)
        prompt = app.main_screen.view_for(app.focused_id).prompt
        prompt.focus()
        paste(app, str(tmp_path / "ws" / "drop.png"))
        await wait_for(pilot, lambda: "drop.png" in screen_text(app) and "next message" in screen_text(app))
        assert prompt.text == ""
        paste(app, "plain words")
        await wait_for(pilot, lambda: prompt.text == "plain words", message="other pastes are typed")


async def test_a_model_without_vision_refuses_with_the_reason(tmp_path):
    (tmp_path / "ws").mkdir()
    png(tmp_path / "ws" / "diagram.png")
    (tmp_path / "ws" / "notes.png").write_text("not really a png")
    app = vision_app(tmp_path, "http://127.0.0.1:9/v1", vision=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await submit(pilot, "/image diagram.png")
        await wait_for(pilot, lambda: "does not take images" in screen_text(app))
        assert app.pending_images == {}
    (tmp_path / "second").mkdir()
    app = vision_app(tmp_path / "second", "http://127.0.0.1:9/v1", vision=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await submit(pilot, f"/image {tmp_path / 'ws' / 'notes.png'}")
        await wait_for(pilot, lambda: "not a PNG, JPEG, GIF or WebP image" in screen_text(app))
        await submit(pilot, "/image missing.png")
        await wait_for(pilot, lambda: "cannot read" in screen_text(app))


def test_anthropic_and_responses_get_the_image_in_their_own_shape():
    from app.providers.anthropic import to_anthropic
    from app.providers.openai_responses import to_responses_input
    from app.vocabulary.messages import Message

    image = {"name": "a.png", "media_type": "image/png", "size": 3, "data": "AAAA"}
    message = Message("user", "look", raw={"images": [image]})
    _system, [turn] = to_anthropic([message])
    assert turn["content"] == [{"type": "text", "text": "look"},
                               {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                            "data": "AAAA"}}]
    [item] = to_responses_input([message])
    assert item["content"][1] == {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}


async def test_the_refusal_for_a_model_from_flags_gives_advice_that_works_when_followed(fake_openai, tmp_path):
    """`--model m` has no [models.*] entry: the refusal names the flag to add, and adding it works."""
    import re

    from app.cli.window import build_parser
    from app.providers.models import ModelRegistry
    from app.settings.config import load_config

    (tmp_path / "ws").mkdir()
    png(tmp_path / "ws" / "diagram.png")
    words = ["--model", "fake-model", "--base-url", fake_openai.base_url, "--api-key", "x"]

    def app_from(argv: list[str], where: Path):
        models = ModelRegistry.from_args(load_config(tmp_path / "no-config.toml"), build_parser().parse_args(argv))
        return make_app(where, settings=models.settings(models.default), models=models)

    app = app_from(words, tmp_path)
    async with app.run_test(size=(140, 30)) as pilot:
        await submit(pilot, "/image diagram.png")
        await wait_for(pilot, lambda: "does not take images" in screen_text(app))
        advice = re.search(r"start Whimbrel with (--\w+) as well", screen_text(app))
        assert advice and "[models." not in screen_text(app)
    second = tmp_path / "second"
    (second / "ws").mkdir(parents=True)
    png(second / "ws" / "diagram.png")
    app = app_from([*words, advice.group(1)], second)  # exactly what it said
    async with app.run_test(size=(140, 30)) as pilot:
        await submit(pilot, "/image diagram.png")
        await wait_for(pilot, lambda: "goes with your next message" in screen_text(app))
        assert app.pending_images
