"""Slash commands: the table of names, usage and one-line help, and parsing of a prompt line.

Frontend-neutral: the TUI binds handlers to these names; completion and /help read this table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SlashCommand:
    name: str  # without the slash
    usage: str  # arguments, e.g. "[N]"
    summary: str


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "", "list every command"),
    SlashCommand("ws", "[new [name] | close [N] | N]", "list, create, close or switch workstreams"),
    SlashCommand("new", "", "start a fresh workstream in a new tab"),
    SlashCommand("agent", "<name>", "open a tab driven by an external ACP agent"),
    SlashCommand("name", "<alias>", "give this workstream a unique alias"),
    SlashCommand("clear", "", "empty the model's context (history stays saved)"),
    SlashCommand("resume", "[query]", "browse and search saved workstreams"),
    SlashCommand("team", "", "the live instances and their workstreams"),
    SlashCommand("delete", "", "delete this workstream and its history (asks first)"),
    SlashCommand("history", "", "show the prompts sent in this workstream"),
    SlashCommand("retry", "", "send the last prompt again, replacing the last answer"),
    SlashCommand("rewind", "[N | undo]", "rewind files and conversation to a message (Esc Esc); N drops N turns"),
    SlashCommand("fork", "[N] [split] [files]", "a new workstream with the talk up to message N (k in /rewind), optionally its files"),
    SlashCommand("worktree", "[merge | keep | discard]", "work in an own git worktree; then its diff, merge, keep or discard"),
    SlashCommand("export", "[path]", "save the transcript as Markdown (for reading), or a path ending .json "
                 "for `whimbrel import`"),
    SlashCommand("model", "[alias]", "list the models, or switch this workstream to one"),
    SlashCommand("cost", "", "tokens and cost per workstream, with tokens per turn"),
    SlashCommand("watches", "", "the background watches: list them, cancel one"),
    SlashCommand("subagent", "[name | close]", "watch a sub-agent (task/plan) live in its own pane; close hides it"),
    SlashCommand("compact", "[focus]", "summarize older context now (optionally focusing on a topic)"),
    SlashCommand("setup", "", "choose a model: detected API keys and local servers"),
    SlashCommand("mcp", "[status | refresh [server]]", "the MCP inspector (F9); status lists the servers, refresh re-lists"),
    SlashCommand("policy", "", "permission rules: list, add, delete; broken ones; review and accept the project files that start things"),
    SlashCommand("audit", "", "the audit log of tool calls, with filters"),
    SlashCommand("network", "[on|off]", "let this workstream's sandboxed commands use the network, or not"),
    SlashCommand("split", "[h|v]", "split the focused pane (side by side or stacked)"),
    SlashCommand("unsplit", "", "close the focused pane (the workstream stays open)"),
    SlashCommand("memory", "[query]", "browse, search, edit and delete memories ('# text' saves one)"),
    SlashCommand("instructions", "[reload]", "the instruction files (AGENTS.md …) given to the model, and from where"),
    SlashCommand("skill", "[name var=value …]", "start a new workstream from a skill (a picker without a name)"),
    SlashCommand("init", "", "have the model draft an AGENTS.md for this workspace (you approve the write)"),
    SlashCommand("image", "<path>", "attach an image to your next message (models that take images)"),
    SlashCommand("settings", "", "theme, bell, limits, default model and keys, saved to config.toml"),
    SlashCommand("theme", "[name]", "pick a theme with a live preview, or use the named one; saved to config.toml"),
    SlashCommand("tools", "[mode native|code|both|default]", "the tool mode: native calls, code (run_code) or both"),
    SlashCommand("quit", "", "quit Whimbrel"),
)
BY_NAME = {c.name: c for c in COMMANDS}


class CommandError(ValueError):
    """A one-line message for the user: unknown command or bad arguments."""


def is_command(text: str) -> bool:
    """A prompt is a command when it starts with '/' followed by a letter ('/tmp/x' is not)."""
    stripped = text.strip()
    return stripped.startswith("/") and len(stripped) > 1 and stripped[1].isalpha() and \
        stripped[1:].split(maxsplit=1)[0].isalpha()


def parse(text: str) -> tuple[SlashCommand, str]:
    """Split '/name args' into the command and its argument text; CommandError when unknown."""
    name, _, args = text.strip()[1:].partition(" ")
    command = BY_NAME.get(name.lower())
    if command is None:
        close = completions(name)
        hint = f" Did you mean /{close[0].name}?" if close else ""
        raise CommandError(f"Unknown command /{name}.{hint} Type /help for the list.")
    return command, args.strip()


def completions(prefix: str) -> list[SlashCommand]:
    """Commands whose name starts with `prefix` (without the slash)."""
    prefix = prefix.lower().lstrip("/")
    return [c for c in COMMANDS if c.name.startswith(prefix)]
