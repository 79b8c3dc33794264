"""`whimbrel export ID|alias [--format md|json] [-o FILE]` and `whimbrel import FILE`: a workstream
with its messages, tool calls, usage and title, moved between machines.

The JSON names the store schema it came from; import refuses a file from a newer schema (it may
hold what this version cannot keep) and never overwrites: the workstream gets a new id, and an
alias already taken here is left off.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

FORMAT = "whimbrel-workstream"
FORMAT_VERSION = 1


class TransferError(Exception):
    """Export or import cannot go on; the message says why, for the user."""


def schema_version() -> int:
    from app.storage.migrations import MIGRATIONS

    return MIGRATIONS[-1][0]


def export_data(store, ref: str) -> dict[str, Any]:
    """The workstream `ref` (id, alias or id prefix) as a JSON-ready dict."""
    try:
        info = store.find_workstream(ref)
    except LookupError as error:
        raise TransferError(str(error)) from None
    messages = [{k: v for k, v in dataclasses.asdict(m).items() if k != "db_id"}
                for m in store.load_messages(info.id)]
    usage = [{k: getattr(row, k) for k in _usage_fields()} for row in store.list_usage(info.id)]
    workstream = {k: getattr(info, k) for k in ("id", "title", "alias", "model", "workdir", "created_at",
                                                 "updated_at")}
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "schema_version": schema_version(),
            "workstream": workstream, "messages": messages, "usage": usage}


def _usage_fields() -> tuple[str, ...]:
    from app.storage.usage_store import USAGE_FIELDS

    return USAGE_FIELDS


def export_markdown_text(store, ref: str) -> str:
    from app.engine.export import export_markdown
    from app.vocabulary.messages import Message

    data = export_data(store, ref)
    fields = {f.name for f in dataclasses.fields(Message)}
    messages = [_message(m, fields) for m in data["messages"]]
    return export_markdown(data["workstream"]["title"] or "", messages)


def _message(entry: dict[str, Any], fields: set[str]):
    from app.vocabulary.messages import Message, ToolCall

    values = {k: v for k, v in entry.items() if k in fields and k != "db_id"}
    values["tool_calls"] = [ToolCall(**call) for call in values.get("tool_calls") or []]
    return Message(**values)


def check_importable(data: Any, source: str) -> None:
    """Raise TransferError unless `data` is an export this version can take in."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TransferError(f"{source} is not a Whimbrel workstream export (no \"format\": \"{FORMAT}\").")
    theirs, ours = data.get("schema_version"), schema_version()
    if not isinstance(theirs, int) or theirs > ours or data.get("format_version", 0) > FORMAT_VERSION:
        raise TransferError(f"{source} comes from a newer Whimbrel (store schema {theirs}, this one knows up to "
                            f"{ours}): upgrade Whimbrel to import it. Nothing was imported.")
    if not isinstance(data.get("workstream"), dict) or not isinstance(data.get("messages"), list):
        raise TransferError(f"{source} has no workstream or messages: nothing was imported.")


def import_data(store, data: dict[str, Any], source: str) -> tuple[str, list[str]]:
    """Create a new workstream from an export; returns its id and notes for the user."""
    from app.vocabulary.messages import Message

    check_importable(data, source)
    fields = {f.name for f in dataclasses.fields(Message)}
    try:
        messages = [_message(entry, fields) for entry in data["messages"]]
    except (TypeError, ValueError) as error:
        raise TransferError(f"{source} has a message this version cannot read ({error}): nothing was imported.") \
            from None
    info, notes = data["workstream"], []
    new_id = store.create_workstream(title=info.get("title"), model=info.get("model"),
                                     workdir=info.get("workdir") or "")
    try:
        for message in messages:
            store.add_message(new_id, message)
        for row in data.get("usage") or []:
            store.add_usage(new_id, **{k: v for k, v in row.items() if k in _usage_fields()})
        alias = info.get("alias")
        if alias:
            try:
                store.find_workstream(alias)
                notes.append(f"the alias {alias!r} is taken here: the imported workstream has none")
            except LookupError:
                store.update_workstream(new_id, alias=alias)
    except Exception:
        store.delete_workstream(new_id)  # no half-imported workstream stays behind
        raise
    if store.get_workstream(info.get("id", "")) is not None:
        notes.append(f"{str(info.get('id'))[:8]} exists here already and was left as it was")
    return new_id, notes


def build_parser(verb: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"whimbrel {verb}", description=(
        "Write a saved workstream (its messages, usage and alias) to a file or stdout: JSON by default, which "
        "`whimbrel import` reads; --format md is a transcript for reading, which cannot be imported."
        if verb == "export" else
        "Add a workstream written by `whimbrel export` (JSON, its default; or /export NAME.json in the window) "
        "to the store, under a new id. A Markdown transcript (--format md, /export NAME.md) cannot be imported."))
    if verb == "export":
        parser.add_argument("workstream", help="id, id prefix or alias")
        parser.add_argument("--format", choices=("md", "json"), default="json",
                            help="json (default) is what `whimbrel import` reads; md is a transcript for reading, "
                                 "which cannot be imported")
        parser.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    else:
        parser.add_argument("file", type=Path, help="a JSON file written by `whimbrel export` (not --format md)")
    parser.add_argument("--data-dir", type=Path, default=None, help="the store to use (default: the user data dir)")
    return parser


def main(verb: str, argv: list[str]) -> int:
    """`whimbrel export …` / `whimbrel import …`; 0 on success, 1 with a message on stderr otherwise."""
    from app.settings.paths import default_data_dir
    from app.settings.config import ConfigError, load_config
    from app.settings.paths import chosen_config_path
    from app.storage.engine import StoreUnavailable
    from app.storage.location import choose_store
    from app.storage.private import private_dir
    from app.storage.store import Store
    from app.vocabulary.inert import inert

    args = build_parser(verb).parse_args(argv)
    data_dir = (args.data_dir or default_data_dir()).expanduser()
    try:
        if verb == "import":
            data = _read_json(args.file)
            check_importable(data, str(args.file))  # before the store is created or touched
        private_dir(data_dir)  # 0700, as the store's own opening makes it (app/storage/private.py)
        chosen = choose_store(data_dir, load_config(*chosen_config_path(None)))  # --db-url, [database] url
        store = Store(chosen.location, connect_args=chosen.connect_args)
        try:
            if verb == "export":
                text = (export_markdown_text(store, args.workstream) if args.format == "md" else
                        json.dumps(export_data(store, args.workstream), indent=2, ensure_ascii=False))
                _write(args.output, text)
            else:
                new_id, notes = import_data(store, data, str(args.file))
                print(inert(f"Imported as {new_id[:8]}: whimbrel --resume {new_id[:8]}"
                            + "".join(f"\n  note: {note}" for note in notes)))
        finally:
            store.close()
    except (TransferError, OSError, ConfigError, StoreUnavailable, ValueError) as error:
        print(inert(f"whimbrel {verb}: {error}"), file=sys.stderr)
        return 1
    return 0


MARKDOWN_IS_FOR_READING = ("a Markdown transcript is for reading and cannot be imported: import takes the JSON "
                           "that `whimbrel export ID` writes by default (or `/export NAME.json` in the window)")


def _read_json(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        if path.suffix.lower() in (".md", ".markdown") or text.lstrip().startswith("# "):
            raise TransferError(f"{path} is Markdown: {MARKDOWN_IS_FOR_READING}. Nothing was imported.") from None
        raise TransferError(f"{path} is not JSON ({error.msg} at line {error.lineno}): nothing was imported.") \
            from None


def _write(output: Path | None, text: str) -> None:
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
