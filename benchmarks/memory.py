"""Memory benchmark: recall over 100,000 stored messages and memory selection over 10,000 memories.

Prints the median of each, beside the median of one plain SQLite SELECT over the same table for
scale (these machines are noisy: compare the ratio, not the milliseconds). Targets on this
machine: recall <= 50 ms, selection <= 20 ms.

    .venv/bin/python benchmarks/memory.py [--messages 100000] [--memories 10000] [--runs 25] [--smoke]
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

from app.memory.memory_store import MemoryStore  # noqa: E402
from app.memory.recall import recall  # noqa: E402
from app.memory.records import Visibility  # noqa: E402
from app.memory.relevance import MemorySelector  # noqa: E402
from app.storage.engine import reader  # noqa: E402
from app.storage.store import Store  # noqa: E402

WORDS = ("alpha beta gamma delta parser config loader retry backoff jitter cache index table query "
         "module function class test build deploy docker kernel socket thread async await stream token "
         "memory recall skill agent model review commit branch merge rebase tabs spaces lint format").split()


def sentence(rng: random.Random, length: int = 30) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(length))


def fill_messages(store: Store, count: int, rng: random.Random) -> None:
    """`count` messages over 100 workstreams, inserted in bulk (the FTS triggers index them)."""
    ids = [store.create_workstream(title=f"ws {n}") for n in range(100)]
    now = time.time()
    rows = [(ids[n % 100], n, "user" if n % 2 else "assistant", sentence(rng), now - n) for n in range(count)]
    rows[count // 2] = (ids[7], count // 2, "user", "the ossified pelican protocol was agreed", now - 7 * 86400)
    with store.engine.begin() as conn:
        conn.executemany("INSERT INTO messages (workstream_id, seq, role, content, reasoning, is_error, "
                         "interrupted, created_at) VALUES (?, ?, ?, ?, '', 0, 0, ?)", rows)


def fill_memories(store: Store, count: int, rng: random.Random) -> MemoryStore:
    memories = MemoryStore(store.engine)
    now = time.time()
    rows = [(f"memory_{n}", sentence(rng, 12), sentence(rng, 40), "project",
             ("global", "workspace", "workstream")[n % 3], ("", "/work/p", f"ws{n % 50}")[n % 3], now, now, 0)
            for n in range(count)]
    with store.engine.begin() as conn:
        conn.executemany("INSERT INTO memories (name, description, content, type, scope, scope_key, "
                         "created_at, updated_at, access_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return memories


def median_ms(fn, runs: int) -> float:
    fn()  # warm
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--smoke", action="store_true", help="CI: one tiny round, to show it still runs (its figures mean nothing)")
    args = parser.parse_args()
    if args.smoke:
        args.messages, args.memories, args.runs = 2000, 200, 1
    rng = random.Random(16)
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "whimbrel.db")
        started = time.perf_counter()
        fill_messages(store, args.messages, rng)
        memories = fill_memories(store, args.memories, rng)
        print(f"filled {args.messages:,} messages and {args.memories:,} memories in "
              f"{time.perf_counter() - started:.1f} s (FTS5: {store.fts_enabled})")
        reads = reader(store.engine)
        with reads.connect() as conn:
            plain = median_ms(lambda: conn.execute(
                "SELECT id, content FROM messages WHERE workstream_id = (SELECT id FROM workstreams LIMIT 1) "
                "ORDER BY id DESC LIMIT 20").all(), args.runs)
            phrase = median_ms(lambda: recall(conn, '"ossified pelican"', use_fts=store.fts_enabled), args.runs)
            words = median_ms(lambda: recall(conn, "retry backoff jitter", use_fts=store.fts_enabled), args.runs)
            like = median_ms(lambda: recall(conn, "ossified pelican", use_fts=False), max(3, args.runs // 5))
            plain_memories = median_ms(lambda: conn.execute(
                "SELECT id, name, description FROM memories WHERE scope = 'global' LIMIT 5").all(), args.runs)
        selector = MemorySelector(memories)
        here = Visibility("ws7", "/work/p")
        conversation = "please fix the retry backoff in the config loader and run the lint " * 20
        select = median_ms(lambda: selector.select(here, conversation, touch=False), args.runs)
        select_touch = median_ms(lambda: selector.select(here, conversation), args.runs)
        store.close()
    print(f"plain SELECT (20 recent messages of one workstream): {plain:8.2f} ms")
    print(f"recall, a rare phrase over {args.messages:,} messages:    {phrase:8.2f} ms  "
          f"({phrase / plain:.0f}x the plain SELECT; target <= 50 ms)")
    print(f"recall, three common words (top 20 by rank):      {words:8.2f} ms  ({words / plain:.0f}x)")
    print(f"recall without FTS5 (LIKE fallback), a phrase:    {like:8.2f} ms  ({like / plain:.0f}x)")
    print(f"plain SELECT (5 memories):                         {plain_memories:8.2f} ms")
    print(f"memory selection over {args.memories:,} memories (BM25):   {select:8.2f} ms  "
          f"({select / plain_memories:.0f}x the plain SELECT; target <= 20 ms)")
    print(f"  … and counting the 5 chosen as accessed (a write): {select_touch:8.2f} ms")


if __name__ == "__main__":
    main()
