"""Storage benchmark: the same store on SQLite and on a real PostgreSQL server, side by side, in one run.

PostgreSQL is Debian's, started by this script in a temporary directory on a unix socket
(tests/pg_server.py, as the tests start it) and stopped at the end; nothing else is touched.

- streaming a turn: a reply saved as it streams (`--saves` appended pieces of 40 characters, then the
  whole reply), median of `--runs`; target PostgreSQL <= 1.2x SQLite;
- search over `--messages` messages (the issue's figure is 1,000,000; the default is smaller so a run
  takes a minute): p95 of 50 word and prefix searches, on both, through the store's search (the resume
  browser's) and through the `recall` tool's (app/memory/recall.py); target PostgreSQL <= 50 ms p95;
- follower latency: the owner saves a streaming reply's piece on one store handle, a follower's handle
  (another instance) is told by LISTEN/NOTIFY (app/storage/pg_listen.py) and reads the reply back:
  p95 over `--saves` saves from the owner's save to the follower holding the text; target <= 250 ms.
  On SQLite a follower polls every READ_ONLY_POLL seconds (app/engine/ownership.py), so it is up to
  that long: printed, not measured;
- `--smoke`: one run, 20 saves, 2,000 messages (tests/test_benchmarks.py runs it).

    .venv/bin/python benchmarks/storage.py [--runs 5] [--saves 200] [--messages 100000] [--smoke]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WORDS = ("migration lease heartbeat sandbox approval rewind checkpoint workstream memory recall "
         "postgres sqlite index token stream reply tool audit policy").split()


def stream_turn(store, saves: int) -> float:
    """Seconds to store one streamed reply: a user message, `saves` appended pieces, the whole reply."""
    from app.vocabulary.messages import Message

    ws = store.create_workstream()
    start = time.perf_counter()
    store.add_message(ws, Message(role="user", content="stream a long answer"))
    draft = store.add_message(ws, Message(role="assistant", content="", interrupted=True))
    text = ""
    for n in range(saves):
        piece = f"piece {n:05d} of the reply, forty chars. "[:40]
        store.append_draft(ws, draft, piece, "")
        text += piece
    store.complete_draft(ws, draft, Message(role="assistant", content=text))
    return time.perf_counter() - start


def _rows(workstream_id: str, count: int):
    """`count` messages of a few random words each (the same on both stores: one seed)."""
    rng = random.Random(7)
    for n in range(count):
        yield (workstream_id, n + 1, "user" if n % 2 else "assistant",
               " ".join(rng.choice(WORDS) for _ in range(12)) + f" n{n}", "", False, False, float(n))


def fill(store, count: int) -> None:
    """`count` messages into one new workstream, in bulk, then the statistics the planner reads.

    SQLite: multi-row inserts through the store's engine, in batches, its FTS5 triggers indexing each.
    PostgreSQL: COPY into `messages` with the word table's trigger off, then the word table filled by one
    INSERT … SELECT of the trigger's own expression (app/storage/pg_fts.py `words_of`) and its GIN index made
again once filled (pg_fts.INDEX_SQL), in one transaction:
    the rows and the index are what saving them one by one makes, in a fraction of the time. A benchmark's
    fill only: the store itself never turns its trigger off."""
    ws = store.create_workstream()
    columns = "workstream_id, seq, role, content, reasoning, is_error, interrupted, created_at"
    if store.path is not None:
        rows = _rows(ws, count)
        while batch := [row for _, row in zip(range(5000), rows)]:
            with store.engine.begin() as conn:
                conn.executemany(f"INSERT INTO messages ({columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
        with store.engine.connect() as conn:
            conn.execute("ANALYZE")
        return
    from app.storage import pg_fts

    with store.engine.dedicated_connection() as conn:
        trigger = f"{pg_fts.WORDS_TABLE}_sync"
        with conn.transaction():
            conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
            conn.execute(f"DROP INDEX {pg_fts.INDEX_NAME}")  # made again below, at once: faster than row by row
            conn.execute(f"ALTER TABLE messages DISABLE TRIGGER {trigger}")
            with conn.cursor().copy(f"COPY messages ({columns}) FROM STDIN") as copy:
                for row in _rows(ws, count):
                    copy.write_row(row)
            conn.execute(f"INSERT INTO {pg_fts.WORDS_TABLE} (message_id, words) SELECT id, {pg_fts.words_of('content')} "
                         f"FROM messages WHERE workstream_id = %s AND role IN {pg_fts.ROLES_SQL}", (ws,))
            conn.execute(f"ALTER TABLE messages ENABLE TRIGGER {trigger}")
            conn.execute(pg_fts.INDEX_SQL)
        conn.execute("VACUUM ANALYZE messages")
        conn.execute(f"VACUUM ANALYZE {pg_fts.WORDS_TABLE}")


def p95_over(queries: list[str], run) -> float:
    """p95 seconds of `run(query)` over the queries."""
    times = []
    for query in queries:
        start = time.perf_counter()
        run(query)
        times.append(time.perf_counter() - start)
    return statistics.quantiles(times, n=20)[-1]


def search_p95(store, queries: list[str]) -> float:
    """p95 of the store's search (the resume browser's)."""
    return p95_over(queries, lambda query: store.search(query, limit=20))


def recall_p95(store, queries: list[str]) -> float:
    """p95 of the `recall` tool's search (app/memory/recall.py), as the memory service runs it."""
    from app.memory.recall import recall
    from app.storage.engine import reader

    def one(query: str) -> None:
        with reader(store.engine).connect() as conn:
            recall(conn, query, use_fts=store.fts_enabled, limit=20)
    return p95_over(queries, one)


def follower_p95(owner, follower, saves: int) -> float:
    """p95 seconds from the owner's save of a draft piece to the follower, woken by its notification,
    holding the reply with that piece."""
    import threading

    from app.vocabulary.messages import Message

    ws = owner.create_workstream()
    heard, changed = [], threading.Condition()

    def told(workstream_id) -> None:
        with changed:
            heard.append(workstream_id)
            changed.notify_all()

    listener = follower.listen(told)
    if not listener.listening.wait(30):
        raise RuntimeError("the follower's listener did not connect")
    draft = owner.start_draft(ws, Message(role="assistant", content="", interrupted=True))
    with changed:  # the draft's start is heard first: its notification is not a piece's
        if not changed.wait_for(lambda: ws in heard, timeout=10):
            raise RuntimeError("the draft's start was never notified")
    times = []
    for n in range(saves):
        with changed:
            before = heard.count(ws)
        piece = f" piece {n:05d}"
        start = time.perf_counter()
        owner.append_draft(ws, draft, piece, "")
        with changed:
            if not changed.wait_for(lambda: heard.count(ws) > before, timeout=10):
                raise RuntimeError(f"save {n} was never notified")
        if not follower.load_conversation(ws).messages[-1].content.endswith(piece):
            raise RuntimeError(f"notified of save {n} but the follower did not read it")
        times.append(time.perf_counter() - start)
    listener.close()
    return statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The store on SQLite against PostgreSQL: streaming and search.")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--smoke", action="store_true", help="one run, small sizes: the code path only")
    args = parser.parse_args(argv)
    if args.smoke:
        args.runs, args.saves, args.messages = 1, 20, 2000

    from app.storage.store import Store
    from tests.pg_server import PgServer, bin_dir

    binaries = bin_dir()
    if binaries is None:
        print("PostgreSQL is not installed (apt-get install postgresql): nothing to compare")
        return 1
    server = PgServer(binaries).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            pg_url = server.database()
            stores = {"sqlite": Store(Path(folder) / "whimbrel.db"), "postgresql": Store(pg_url)}
            try:
                stream = {name: [] for name in stores}
                for _ in range(args.runs):
                    for name, store in stores.items():
                        stream[name].append(stream_turn(store, args.saves))
                medians = {name: statistics.median(times) for name, times in stream.items()}
                ratio = medians["postgresql"] / medians["sqlite"]
                print(f"streaming a turn ({args.saves} saves), median of {args.runs}: "
                      f"sqlite {medians['sqlite'] * 1000:.0f} ms, postgresql {medians['postgresql'] * 1000:.0f} ms, "
                      f"{ratio:.2f}x  (target <= 1.2x: {'OK' if ratio <= 1.2 else 'OVER TARGET'})")
                queries = [random.Random(n).choice(WORDS)[: 3 + n % 5] for n in range(50)]
                for name, store in stores.items():
                    start = time.perf_counter()
                    fill(store, args.messages)
                    filled = time.perf_counter() - start
                    p95 = search_p95(store, queries)
                    verdict = f"  (target <= 50 ms: {'OK' if p95 <= 0.05 else 'OVER TARGET'})" if name == "postgresql" else ""
                    print(f"search over {args.messages:,} messages on {name}: p95 {p95 * 1000:.1f} ms "
                          f"(filled in {filled:.1f} s){verdict}")
                    p95 = recall_p95(store, queries)
                    verdict = f"  (target <= 50 ms: {'OK' if p95 <= 0.05 else 'OVER TARGET'})" if name == "postgresql" else ""
                    print(f"recall over {args.messages:,} messages on {name}: p95 {p95 * 1000:.1f} ms{verdict}")
                from app.engine.ownership import READ_ONLY_POLL

                follower = Store(pg_url)
                try:
                    p95 = follower_p95(stores["postgresql"], follower, args.saves)
                finally:
                    follower.close()
                print(f"follower latency on postgresql (save -> notified -> read), p95 of {args.saves}: "
                      f"{p95 * 1000:.1f} ms  (target <= 250 ms: {'OK' if p95 <= 0.25 else 'OVER TARGET'}); "
                      f"sqlite followers poll every {READ_ONLY_POLL:g} s")
            finally:
                for store in stores.values():
                    store.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
