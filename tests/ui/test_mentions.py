"""@-mentions: the workspace's files are listed respecting .gitignore and matched fuzzily; the list
above the prompt follows typing, Tab completes, and a mentioned file (or folder) is attached to the
message the model gets, with a marker in the transcript; paths leading out of the workspace stay text."""

from __future__ import annotations

import subprocess
from pathlib import Path

from app.mentions.files import FILE_CAP, expand_mentions, mention_at_end
from app.vocabulary.attachments import split_attachments
from app.mentions.workspace_files import FileIndex, list_workspace, with_folders
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, make_app, screen_text, wait_for
from widgets.mention_suggestions import MentionSuggestions


def workspace(root: Path) -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "main.py").write_text("def main():\n    return 'the answer is 42'\n")
    (root / "src" / "util.py").write_text("X = 1\n")
    (root / "build").mkdir(exist_ok=True)
    (root / "build" / "out.bin").write_text("junk")
    (root / "notes.txt").write_text("remember the milk\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "debug.log").write_text("noise")
    return root


def test_listing_respects_gitignore_with_and_without_git(tmp_path):
    plain = workspace(tmp_path / "plain")
    assert sorted(list_workspace(plain)) == [".gitignore", "notes.txt", "src/main.py", "src/util.py"]
    repo = workspace(tmp_path / "repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert sorted(list_workspace(repo)) == [".gitignore", "notes.txt", "src/main.py", "src/util.py"]


def test_fuzzy_matching_ranks_prefix_then_names_then_letters_in_order():
    index = FileIndex(with_folders(["src/main.py", "src/util.py", "docs/main_guide.md", "tests/test_main.py",
                                    "Makefile"]))
    assert index.match("src/ma")[0] == "src/main.py"
    # a name starting with the query, shortest path first (alphabetical within the tier), then substrings
    assert index.match("main") == ["src/main.py", "docs/main_guide.md", "tests/test_main.py"]
    assert index.match("smp") == ["src/main.py", "tests/test_main.py"]  # letters in order
    assert index.match("make") == ["Makefile"]  # case-insensitive, original case kept
    assert index.match("qqq") == []
    assert index.match("sr") == ["src/", "src/main.py", "src/util.py"]


def test_mention_being_typed():
    assert mention_at_end("look at @src/ma") == "src/ma"
    assert mention_at_end("mail me@example.com") is None
    assert mention_at_end("@") == ""
    assert mention_at_end("look at @src/main.py now") is None


def test_a_mentioned_file_and_folder_are_attached(tmp_path):
    root = workspace(tmp_path / "ws")
    message = expand_mentions("Explain @src/main.py, and list @src please", root)
    typed, attachments = split_attachments(message)
    assert typed == "Explain @src/main.py, and list @src please"
    assert [(a.kind, a.path) for a in attachments] == [("file", "src/main.py"), ("folder", "src/")]
    assert attachments[0].body == "def main():\n    return 'the answer is 42'"
    assert attachments[1].body == "main.py\nutil.py"


def test_mentions_outside_the_workspace_or_missing_stay_plain_text(tmp_path):
    root = workspace(tmp_path / "ws")
    (tmp_path / "secret.txt").write_text("top secret")
    (root / "link").symlink_to(tmp_path / "secret.txt")
    text = "see @../secret.txt @/etc/passwd @link @nope.py"
    assert expand_mentions(text, root) == text


def test_a_big_file_is_capped_and_marked(tmp_path):
    root = workspace(tmp_path / "ws")
    (root / "big.txt").write_text("x" * (FILE_CAP + 500))
    _, [attachment] = split_attachments(expand_mentions("@big.txt", root))
    assert attachment.truncated and len(attachment.body) == FILE_CAP and attachment.size == FILE_CAP + 500


async def test_typing_a_mention_completes_attaches_and_shows_a_marker(fake_openai, tmp_path):
    workspace(tmp_path / "ws")
    fake_openai.queue(TextReply("It returns 'the answer is 42'."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(110, 30)) as pilot:
        await booted(pilot)
        view = app.main_screen.view_for(app.focused_id)
        await pilot.press(*"what does @src/ma")
        suggestions = view.query_one(MentionSuggestions)
        await wait_for(pilot, lambda: suggestions.display and suggestions.matches[:1] == ["src/main.py"],
                       message="the completion list offers src/main.py")
        await pilot.press("tab")
        assert view.prompt.text == "what does @src/main.py "
        await pilot.press(*"return?", "enter")
        await wait_for(pilot, lambda: "the answer is 42" in screen_text(app), message="the reply")
        assert not suggestions.display
        assert "📎 src/main.py · 42 B" in screen_text(app)
        assert "def main()" not in screen_text(app)  # the file is attached, not shown
    sent = fake_openai.requests[-1]["messages"][-1]["content"]
    assert sent.startswith("what does @src/main.py return?\n\n<attached-file path=\"src/main.py\" bytes=\"42\">")
    assert "return 'the answer is 42'" in sent
