"""`whimbrel db status|migrate|copy`: which store this is, its schema, who has it open; move a history.

The store is the one every command uses (app/storage/location.py: `--db-url`, WHIMBREL_DATABASE_URL,
`[database] url`, else the data dir's SQLite file). A URL is only ever printed with its password masked.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="whimbrel db", description=(
        "The store: SQLite in the data dir, or a team's PostgreSQL (--db-url, WHIMBREL_DATABASE_URL, "
        "[database] url)."))
    _store_options(parser, default=None)
    shared = argparse.ArgumentParser(add_help=False)  # the same options after the verb too: `db status --data-dir X`
    _store_options(shared, default=argparse.SUPPRESS)
    verbs = parser.add_subparsers(dest="action", required=True)
    for verb, about in (("status", "which store, its schema version and revision, the live instances"),
                        ("migrate", "bring the store's schema up to this Whimbrel's (Alembic)")):
        verbs.add_parser(verb, help=about, description=about[0].upper() + about[1:] + ".", parents=[shared])
    copy = verbs.add_parser("copy", help="copy this store's history into another (idempotent)", parents=[shared],
                            description=(
        "Copy this store's workstreams, memories, accepted policy files and audit rows into another store "
        "(a team's PostgreSQL); what the target already has is skipped, so it can be run again."))
    copy.add_argument("--to", required=True, help="the target: a postgresql:// URL or a SQLite file's path")
    return parser


def _store_options(parser: argparse.ArgumentParser, default: Any) -> None:
    """--data-dir and --config, given before the verb or after it (a verb's copy leaves the first unset)."""
    parser.add_argument("--data-dir", type=Path, default=default, help="the data dir (default: the user data dir)")
    parser.add_argument("--config", type=Path, default=default, help="config.toml to read [database] from")


def _chosen(args: argparse.Namespace) -> Any:
    from app.settings.config import load_config
    from app.settings.paths import chosen_config_path, default_data_dir
    from app.storage.location import choose_store

    config_path, named_by = chosen_config_path(args.config)
    config = load_config(config_path, named_by)
    return config, choose_store((args.data_dir or default_data_dir()).expanduser(), config)


def status(store: Any, shown: str) -> str:
    """The lines `db status` prints."""
    from app.storage.migrations import current_version
    from app.storage.schema_upgrade import HEAD, recorded_revision

    with store.engine.connect() as conn:
        version, revision = current_version(conn), recorded_revision(conn)
        workstreams = conn.execute("SELECT count(*) FROM workstreams").scalar()
    instances = store.live_instances()  # who, host, pid and their workstreams (app/storage/team.py)
    kind = "PostgreSQL" if store.path is None else "SQLite"
    lines = [f"store: {kind} {shown}",
             f"schema: version {version}, revision {revision or 'none'}"
             + ("" if revision == HEAD else f" (this Whimbrel's: {HEAD}; run `whimbrel db migrate`)"),
             f"workstreams: {workstreams}",
             f"live instances: {len(instances)}"]
    lines += [f"  {i.who} on {i.host} pid {i.pid} ({i.instance_id[:8]}): {len(i.workstreams)} "
              f"workstream{'s' if len(i.workstreams) != 1 else ''} open" for i in instances]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """`whimbrel db …`; 0 on success, 1 (2 for bad settings) with a message on stderr otherwise."""
    from app.settings.config import ConfigError
    from app.storage.engine import StoreUnavailable
    from app.vocabulary.inert import inert

    args = build_parser().parse_args(argv)
    try:
        config, chosen = _chosen(args)
    except (ConfigError, ValueError) as error:
        print(inert(f"whimbrel db: {error}"), file=sys.stderr)
        return 2
    from app.storage.store import Store

    try:
        if args.action == "migrate":
            from app.storage.schema_upgrade import upgrade

            store = Store(chosen.location, connect_args=chosen.connect_args)  # the frozen steps, then the baseline
            store.close()
            print(inert(f"{chosen.shown}: at revision {upgrade(chosen.location, chosen.connect_args)}"))
            return 0
        store = Store(chosen.location, connect_args=chosen.connect_args)
        try:
            if args.action == "status":
                print(inert(status(store, chosen.shown)))
            else:
                return _copy(store, chosen, args.to, config)
        finally:
            store.close()
    except (StoreUnavailable, OSError, RuntimeError) as error:
        print(inert(f"whimbrel db {args.action}: {error}"), file=sys.stderr)
        return 1
    return 0


def _copy(store: Any, chosen: Any, to: str, config: Any) -> int:
    from app.storage.location import choose_store, is_server_url, shown_url
    from app.storage.store import Store
    from app.transfer.db_copy import copy_store
    from app.vocabulary.inert import inert

    if is_server_url(to):  # the target's password and TLS options come from where the source's do
        target_choice = choose_store(Path("."), config, environ={**_environ(), "WHIMBREL_DATABASE_URL": to})
        location, connect_args = target_choice.location, target_choice.connect_args
    else:
        location, connect_args = Path(to).expanduser(), {}
    if str(location) == str(chosen.location):
        print(inert(f"whimbrel db copy: {shown_url(to)} is the store itself"), file=sys.stderr)
        return 2
    target = Store(location, connect_args=connect_args)
    try:
        report = copy_store(store, target)
    finally:
        target.close()
    added = ", ".join(f"{n} {table}" for table, n in sorted(report.added.items())) or "nothing new"
    print(inert(f"copied {chosen.shown} into {shown_url(to)}: {added}; "
                f"{len(report.skipped_workstreams)} workstream(s) already there"))
    for note in report.notes:
        print(inert(f"  note: {note}"))
    return 0


def _environ() -> dict[str, str]:
    import os

    return dict(os.environ)
