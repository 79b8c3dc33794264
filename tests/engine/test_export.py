"""The Markdown transcript written by /export."""

from __future__ import annotations

import json

from app.engine.export import export_markdown, truncate
from app.vocabulary.messages import Message, ToolCall


def _conversation() -> list[Message]:
    return [
        Message(role="user", content="List the files, please."),
        Message(role="assistant", content="Let me look.", reasoning="The user wants ls.\nUse bash.",
                tool_calls=[ToolCall("c1", "bash", '{"command": "ls -la"}'),
                            ToolCall("c2", "read_file", "not json {")]),
        Message(role="tool", content="a.py\nb.py", tool_call_id="c1", name="bash"),
        Message(role="tool", content="no such file", tool_call_id="c2", name="read_file",
                is_error=True),
        Message(role="assistant", content="There are two files: `a.py` and `b.py`."),
    ]


def test_sections_reasoning_calls_and_results() -> None:
    md = export_markdown("Files", _conversation())
    assert md.startswith("# Files\n\n## User\n\nList the files, please.\n\n## Assistant\n\n")
    assert ("<details>\n<summary>Reasoning</summary>\n\n> The user wants ls.\n> Use bash.\n\n"
            "</details>") in md
    args = json.dumps({"command": "ls -la"}, indent=2)
    assert (f"**Tool call** `bash`\n\n```json\n{args}\n```\n\n"
            "**Result**\n\n```\na.py\nb.py\n```") in md
    assert ("**Tool call** `read_file`\n\n```\nnot json {\n```\n\n"
            "**Error**\n\n```\nno such file\n```") in md
    assert md.count("## Assistant") == 2 and md.count("## User") == 1
    assert md.count("a.py\nb.py") == 1  # each result shown once, under its call
    assert md.endswith("There are two files: `a.py` and `b.py`.\n")
    # order: the reasoning, then the text, then the calls
    assert md.index("Reasoning") < md.index("Let me look.") < md.index("**Tool call** `bash`")


def test_long_results_are_cut_in_the_middle() -> None:
    out = "\n".join(f"line {i}" for i in range(500))
    msgs = [Message(role="assistant", tool_calls=[ToolCall("c", "bash", "{}")]),
            Message(role="tool", content=out, tool_call_id="c", name="bash")]
    md = export_markdown("t", msgs)
    assert "line 0\n" in md and "line 499\n" in md
    assert "line 250" not in md
    assert "[… 460 lines omitted …]" in md
    huge = "x" * 50_000
    cut = truncate(huge)
    assert len(cut) < 4_100 and "characters omitted" in cut


def test_backticks_in_content_do_not_break_fences() -> None:
    msgs = [Message(role="assistant", tool_calls=[ToolCall("c", "bash", "{}")]),
            Message(role="tool", content="```python\nprint(1)\n```", tool_call_id="c", name="bash")]
    md = export_markdown("t", msgs)
    assert "````\n```python\nprint(1)\n```\n````" in md


def test_interrupted_and_unanswered_calls_and_orphan_results() -> None:
    msgs = [Message(role="user", content="go"),
            Message(role="assistant", content="partial", interrupted=True,
                    tool_calls=[ToolCall("c", "bash", '{"command": "sleep 9"}')]),
            Message(role="tool", content="stray", tool_call_id="zzz", name="bash")]
    md = export_markdown("t", msgs)
    assert "_No result: the turn was interrupted._" in md
    assert "_(interrupted)_" in md
    assert "**Result** of `bash`\n\n```\nstray\n```" in md


def test_clear_points_and_empty_title() -> None:
    msgs = [Message(role="user", content="one"), Message(role="assistant", content="two"),
            Message(role="user", content="three")]
    md = export_markdown("  ", msgs, clears=[2])
    assert md.startswith("# Whimbrel conversation\n")
    assert md.index("two") < md.index("_Context cleared") < md.index("three")
    assert export_markdown("t", [], clears=[0]) == "# t\n\n---\n\n_Context cleared._\n"
