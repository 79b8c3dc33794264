"""`whimbrel completion bash|zsh|fish`: completion scripts read off the argparse parsers the commands
use (subcommands, their verbs, flags and the values of flags with choices), so a new flag completes
without anyone editing a script. zsh runs the bash script through its bashcompinit layer."""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass, field


@dataclass
class Node:
    """One level of the command line: its flags (with their help and choices) and its words."""

    flags: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)  # flag: (help, choices)
    words: dict[str, tuple[str, "Node | None"]] = field(default_factory=dict)  # word: (help, subtree)


def node_of(parser: argparse.ArgumentParser) -> Node:
    node = Node()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                node.words[name] = (helps.get(name, ""), node_of(sub))
        elif action.option_strings:
            for flag in action.option_strings:
                node.flags[flag] = (action.help or "", tuple(map(str, action.choices or ())))
        elif action.choices:  # a positional with fixed values: `completion SHELL`, `help TOPIC`
            for value in action.choices:
                node.words.setdefault(str(value), ("", None))
    return node


def tree() -> Node:
    """The whole command line: the window's flags and every subcommand's tree."""
    from app.cli.commands import COMMANDS, parser_for
    from app.cli.window import build_parser

    root = node_of(build_parser())
    for name, about in COMMANDS.items():
        root.words[name] = (about, node_of(parser_for(name)))
    return root


def _walk(node: Node, path: tuple[str, ...] = ()):
    yield path, node
    for word, (_help, sub) in node.words.items():
        if sub is not None:
            yield from _walk(sub, (*path, word))


def bash_script(root: Node) -> str:
    words, flags, values = [], [], []
    for path, node in _walk(root):
        key = shlex.quote("/".join(path))
        words.append(f"        {key}) echo {shlex.quote(' '.join(node.words))} ;;")
        flags.append(f"        {key}) echo {shlex.quote(' '.join(node.flags))} ;;")
        for flag, (_help, choices) in node.flags.items():
            if choices:
                values.append(f"        {shlex.quote('/'.join(path) + ' ' + flag)}) echo "
                              f"{shlex.quote(' '.join(choices))} ;;")
    return f"""# whimbrel completion for bash: eval "$(whimbrel completion bash)"
_whimbrel_words() {{
    case "$1" in
{chr(10).join(words)}
    esac
}}
_whimbrel_flags() {{
    case "$1" in
{chr(10).join(flags)}
    esac
}}
_whimbrel_values() {{
    case "$1" in
{chr(10).join(values)}
    esac
}}
_whimbrel() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" path="" word i
    (( COMP_CWORD > 0 )) && prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    for (( i = 1; i < COMP_CWORD; i++ )); do
        word="${{COMP_WORDS[i]}}"
        case " $(_whimbrel_words "$path") " in
            *" $word "*) [[ -n "$(_whimbrel_flags "${{path:+$path/}}$word")" ]] && path="${{path:+$path/}}$word" ;;
        esac
    done
    local choices
    choices="$(_whimbrel_values "$path $prev")"
    if [[ -n "$choices" ]]; then
        COMPREPLY=( $(compgen -W "$choices" -- "$cur") )
    elif [[ "$cur" == -* ]]; then
        COMPREPLY=( $(compgen -W "$(_whimbrel_flags "$path")" -- "$cur") )
    else
        COMPREPLY=( $(compgen -W "$(_whimbrel_words "$path")" -- "$cur") )
    fi
}}
complete -o default -F _whimbrel whimbrel
"""


def zsh_script(root: Node) -> str:
    return ("#compdef whimbrel\n# whimbrel completion for zsh: eval \"$(whimbrel completion zsh)\"\n"
            "autoload -U +X bashcompinit && bashcompinit\n" + bash_script(root).split("\n", 1)[1])


def _fish_text(text: str) -> str:
    return shlex.quote(text.split(";")[0][:80])


def fish_script(root: Node) -> str:
    lines = ["# whimbrel completion for fish: whimbrel completion fish > ~/.config/fish/completions/whimbrel.fish"]
    for path, node in _walk(root):
        if path:
            condition = "; and ".join(f"__fish_seen_subcommand_from {word}" for word in path)
            below = [w for w, (_h, sub) in node.words.items() if sub is not None]
            if below:
                condition += f"; and not __fish_seen_subcommand_from {' '.join(below)}"
        else:
            condition = "__fish_use_subcommand"
        for word, (about, _sub) in node.words.items():
            lines.append(f"complete -c whimbrel -f -n {shlex.quote(condition)} -a {shlex.quote(word)}"
                         + (f" -d {_fish_text(about)}" if about else ""))
        for flag, (about, choices) in node.flags.items():
            spelled = f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}"
            lines.append(f"complete -c whimbrel -n {shlex.quote(condition)} {spelled}"
                         + (f" -xa {shlex.quote(' '.join(choices))}" if choices else "")
                         + (f" -d {_fish_text(about)}" if about else ""))
    return "\n".join(lines) + "\n"


def script(shell: str) -> str:
    return {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[shell](tree())
