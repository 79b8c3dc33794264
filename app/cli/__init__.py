"""The command line, every face's entry point: `whimbrel` (the console script `app.cli:main`) and
`python -m app.cli`. The parser and the dispatch live in entry.py."""

from app.cli.entry import main

__all__ = ["main"]
