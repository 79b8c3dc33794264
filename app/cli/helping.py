"""`whimbrel help [TOPIC|COMMAND]` and `whimbrel completion SHELL`: the command line explaining itself."""

from __future__ import annotations

import sys

from app.cli.commands import parser_for


def main(verb: str, argv: list[str]) -> int:
    args = parser_for(verb).parse_args(argv)
    if verb == "completion":
        from app.cli.completion import script

        sys.stdout.write(script(args.shell))
        return 0
    from app.cli.topics import TOPICS, topic_text, topics_text

    if args.topic is None:
        print(topics_text())
    elif args.topic in TOPICS:
        print(topic_text(args.topic))
    else:
        parser_for(args.topic).print_help()
    return 0
