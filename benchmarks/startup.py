"""Startup and idle benchmark: `whimbrel` against a bare Textual app, in one run, through a real pty.

Every program runs on its own pseudo-terminal (120x40, TERM=xterm-256color); the clock starts at
spawn. Whimbrel runs with one OpenAI-compatible model configured (a fake server on 127.0.0.1),
`[policy] mode = "accept-edits"` and two saved tabs, so its complete first screen has every
marker of the issue: the prompt, the footer's keys, the status bar's model, mode and context
gauge, and both saved tabs in the tab bar. The bare app (benchmarks/bare_textual_app.py) is
complete when its footer shows "Quit".

Three ratios, each measured with the programs side by side in this run (the machine is shared):

- complete first screen: median time until every marker is on screen, rounds interleaved (order
  swapped every round, after one warm-up of each); target <= 1.3x the bare app;
- idle CPU: both started together, then the CPU time of each process tree over 30 s from /proc
  with the input focused and nothing happening; target <= 1.2x the bare app;
- idle RSS: resident memory of each process tree 8 s after start; target <= 60 MB for Whimbrel
  (and <= 100 MB after 20 turns).

Beside them, so nothing is bought by hiding work: the first keystroke's echo (typed the moment the
screen is complete), the time until the restored tab's history is shown, and the first turn: a
prompt typed at 50 ms a key as soon as the screen is complete (Enter until the reply's last words
are on screen, and spawn until then: a screen complete sooner lets the user type while boot is
still running), and the same prompt typed once the saved history is shown (Enter until the reply). `--before DIR` runs another checkout of Whimbrel (an older commit, say) in
the same rounds, so before and after are measured under the same load.

Whimbrel's own modules are compiled to bytecode first, as `pip install .` does (an editable
install in an environment with PYTHONDONTWRITEBYTECODE would compile every module on every start,
which no user's install does). For information it also times the imports of `app.cli` +
`app.tui.app` and checks that no heavy SDK is imported by them.

    .venv/bin/python benchmarks/startup.py [--runs 5] [--idle 30] [--before DIR] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.pty_terminal import COLUMNS, ROWS, Terminal, drain_together  # noqa: E402

SCREEN_TARGET, CPU_TARGET, RSS_TARGET, RSS_AFTER_TURNS_TARGET = 1.3, 1.2, 60.0, 100.0
HEAVY = ("openai", "anthropic", "mcp", "sqlalchemy")
MODEL = "bench-model"
TABS = ("saved-tab-one", "saved-tab-two")
SAVED_TEXT = "the saved conversation of tab one"
WHIMBREL_MARKERS = {
    "prompt": b"for work",  # the placeholder; its first letter carries the cursor's style
    "footer": b"Quit",
    "model": MODEL.encode(),
    "mode": b"mode: accept-edits",
    "gauge": b"32.0k",  # "0 / 32.0k" beside the gauge's cells
    **{f"tab {n}": name.encode() for n, name in enumerate(TABS, start=1)},
}
BARE_MARKERS = {"footer": b"Quit"}
KEY = "ж".encode()  # one key whose echo cannot be mistaken for anything else on screen
TURN_PROMPT = "hello there"
KEY_GAP = 0.05  # seconds between typed keys: faster than anyone types
RSS_AT = 8.0  # seconds after start


@dataclass
class Program:
    """A program to measure: how to start it and what its complete first screen shows."""

    name: str
    argv: list[str]
    cwd: Path
    markers: dict[str, bytes]
    whimbrel: bool = False
    screens: list[float] = field(default_factory=list)
    echoes: list[float] = field(default_factory=list)
    restored: list[float] = field(default_factory=list)
    turns: list[float] = field(default_factory=list)  # typed at once: Enter until the reply
    turns_total: list[float] = field(default_factory=list)  # ... and from the spawn
    turns_restored: list[float] = field(default_factory=list)  # typed once the history is shown
    last_marker: dict[str, int] = field(default_factory=dict)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(path: Path, port: int) -> None:
    path.write_text(f"""
[model]
default = "bench"

[models.bench]
base_url = "http://127.0.0.1:{port}/v1"
api_key = "benchmark"
model = "{MODEL}"
context_window = 32000

[policy]
mode = "accept-edits"
""")


def saved_data_dir(path: Path, workdir: Path) -> None:
    """A store with two saved tabs, the first of them focused and holding a short conversation."""
    from app.storage.store import Store
    from app.vocabulary.messages import Message

    store = Store(path / "whimbrel.db")
    ids = [store.create_workstream(title=title, model=MODEL, workdir=str(workdir)) for title in TABS]
    for workstream_id in ids:
        store.add_message(workstream_id, Message(role="user", content=SAVED_TEXT))
        store.add_message(workstream_id, Message(role="assistant", content="noted"))
    store.set_app_state("tabs", ids)
    store.set_app_state("focused", ids[0])
    store.close()


def whimbrel_program(name: str, tree: Path, tmp: Path) -> Program:
    """Whimbrel from `tree`, run by that checkout's own environment when it has one (an older commit
    may need packages this one dropped), otherwise by this interpreter."""
    own = tree / ".venv" / "bin" / "python"
    argv = [str(own) if own.exists() else sys.executable, "-m", "app.cli", "--workdir", str(tmp / "work"), "--data-dir", str(tmp / f"data-{name}"),
            "--config", str(tmp / "config.toml")]
    return Program(name, argv, tree, WHIMBREL_MARKERS, whimbrel=True)


def fresh_data(tmp: Path, program: Program) -> None:
    """Every start sees the same saved store (a run prunes, takes leases, writes history); each
    program has its own, so programs started together never hold each other's tabs."""
    if program.whimbrel:
        shutil.rmtree(tmp / f"data-{program.name}", ignore_errors=True)
        shutil.copytree(tmp / "pristine", tmp / f"data-{program.name}")


def first_screen(program: Program, tmp: Path) -> None:
    """One start: until every marker is on screen, then the first key's echo and the history."""
    fresh_data(tmp, program)
    with Terminal(program.name, program.argv, program.cwd) as terminal:
        seen = terminal.wait_for(program.markers)
        program.screens.append(max(seen.values()))
        program.last_marker[max(seen, key=seen.get)] = program.last_marker.get(max(seen, key=seen.get), 0) + 1
        program.echoes.append(terminal.echo_seconds(KEY))
        if program.whimbrel:
            program.restored.append(terminal.wait_for({"history": SAVED_TEXT.encode()})["history"])


def first_turn(program: Program, tmp: Path, more_turns: int, *, once_restored: bool = False) -> float:
    """A prompt typed as soon as the screen is complete (or, `once_restored`, once the saved history is
    shown); Enter until the reply is shown, and from the spawn. Then `more_turns` more turns; returns
    the RSS after them (MB)."""
    fresh_data(tmp, program)
    with Terminal(program.name, program.argv, program.cwd) as terminal:
        terminal.wait_for({**program.markers, **({"history": SAVED_TEXT.encode()} if once_restored else {})})
        for char in TURN_PROMPT:
            terminal.send(char.encode())
            terminal.drain_until(terminal.elapsed() + KEY_GAP)
        offset, sent = terminal.send(b"\r")
        shown = terminal.wait_for({"reply": f"said: {TURN_PROMPT}".encode()}, since=offset)["reply"]
        if once_restored:
            program.turns_restored.append(shown - sent)
        else:
            program.turns.append(shown - sent)
            program.turns_total.append(shown)
        for turn in range(2, more_turns + 2):
            offset, _ = terminal.send(f"turn {turn} now\r".encode())
            terminal.wait_for({"reply": f"said: turn {turn} now".encode()}, since=offset)
        terminal.drain_until(terminal.elapsed() + 1.0)
        return terminal.rss_mb()


def idle_side_by_side(programs: list[Program], tmp: Path, seconds: float, rss_at: float) -> tuple[dict, dict]:
    """All programs started together: RSS at `rss_at` s, then CPU seconds over `seconds` of idling."""
    for program in programs:
        fresh_data(tmp, program)
    terminals = [Terminal(p.name, p.argv, p.cwd) for p in programs]
    try:
        for program, terminal in zip(programs, terminals):
            terminal.wait_for(program.markers)
        drain_together(terminals, rss_at - min(t.elapsed() for t in terminals))
        rss = {t.name: t.rss_mb() for t in terminals}
        start = {t.name: (t.cpu_seconds(), t.wakeups()) for t in terminals}
        drain_together(terminals, seconds)
        cpu = {t.name: ((t.cpu_seconds() - start[t.name][0]) / seconds * 100,
                        (t.wakeups() - start[t.name][1]) / seconds) for t in terminals}
        return rss, cpu
    finally:
        for terminal in terminals:
            terminal.close()


IMPORT_PROBE = """
import json, sys, time
start = time.perf_counter()
{imports}
elapsed = time.perf_counter() - start
print(json.dumps({{"seconds": elapsed, "heavy": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def import_time(imports: str, runs: int) -> tuple[float, list[str]]:
    """Median seconds to run `imports` in a fresh interpreter, and which heavy SDKs got loaded."""
    samples, heavy = [], []
    for _ in range(runs):
        code = IMPORT_PROBE.format(imports=imports, heavy=HEAVY)
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        samples.append(result["seconds"])
        heavy = result["heavy"]
    return statistics.median(samples), heavy


def compile_own_modules(tree: Path) -> None:
    """Bytecode for Whimbrel's packages, as an installed copy has (see the module docstring)."""
    import compileall

    for package in ("app", "widgets", "tools", "styles"):
        compileall.compile_dir(tree / package, quiet=1)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def verdict(ok: bool) -> str:
    return "OK" if ok else "OVER TARGET"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured rounds (default 5)")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle CPU measured (default 30)")
    parser.add_argument("--turns", type=int, default=20, help="turns before the last RSS reading (default 20)")
    parser.add_argument("--before", type=Path, help="another Whimbrel checkout, measured in the same rounds")
    parser.add_argument("--smoke", action="store_true",
                        help="CI: one round, no warm-up, 1 s of idle: it still runs (its figures mean nothing)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.runs, args.idle, args.turns = 1, 1.0, 2
    trees = [ROOT] + ([args.before.resolve()] if args.before else [])
    for tree in trees:
        compile_own_modules(tree)
    server = subprocess.Popen([sys.executable, "-m", "tests.fake_llm.openai_server", "--port", str(port := free_port())],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        server.stdout.readline()  # "fake ... server on ..." once it listens
        with tempfile.TemporaryDirectory(prefix="whimbrel-bench-") as name:
            return measure(Path(name), port, trees, args)
    finally:
        server.kill()
        server.wait()


def measure(tmp: Path, port: int, trees: list[Path], args) -> int:
    (tmp / "work").mkdir()
    write_config(tmp / "config.toml", port)
    saved_data_dir(tmp / "pristine", tmp / "work")
    whimbrels = [whimbrel_program("whimbrel" if tree == ROOT else "before", tree, tmp) for tree in trees]
    bare = Program("bare textual", [sys.executable, str(ROOT / "benchmarks" / "bare_textual_app.py")], ROOT,
                   BARE_MARKERS)
    programs = [*whimbrels, bare]

    print(f"complete first screen ({COLUMNS}x{ROWS} pty), {args.runs} rounds after a warm-up; "
          f"first key's echo; whimbrel's restored history")
    for program in programs if not args.smoke else ():  # warm-up: disk caches, .pyc files
        first_screen(program, tmp)
        program.screens.clear(), program.echoes.clear(), program.restored.clear(), program.last_marker.clear()
    for run in range(args.runs):
        for program in (programs if run % 2 == 0 else programs[::-1]):
            first_screen(program, tmp)
        print(f"  round {run + 1}: " + "   ".join(
            f"{p.name} {ms(p.screens[-1])} (echo {ms(p.echoes[-1])}"
            + (f", history {ms(p.restored[-1])})" if p.whimbrel else ")") for p in programs))

    print(f"first turn: '{TURN_PROMPT}' typed at {ms(KEY_GAP)} a key as soon as the screen is complete "
          f"(Enter until the reply is shown / spawn until then), or once the saved history is shown; "
          f"then {args.turns - 1} more turns")
    after_turns: dict[str, float] = {}
    for run in range(args.runs):
        for program in (whimbrels if run % 2 == 0 else whimbrels[::-1]):
            more = args.turns - 1 if run == args.runs - 1 else 0
            first_turn(program, tmp, 0, once_restored=True)
            rss = first_turn(program, tmp, more)
            if more:
                after_turns[program.name] = rss
        print("  round " + str(run + 1) + ": " + "   ".join(
            f"{p.name} {ms(p.turns[-1])} / {ms(p.turns_total[-1])}, once restored {ms(p.turns_restored[-1])}"
            for p in whimbrels))

    print(f"idle: all started together; RSS {RSS_AT:.0f} s after start, CPU over {args.idle:.0f} s")
    rss, cpu = idle_side_by_side(programs, tmp, args.idle, rss_at=0.0 if args.smoke else RSS_AT)

    median = {p.name: statistics.median(p.screens) for p in programs}
    print()
    print(f"{'':14}{'screen':>9}{'× bare':>8}{'echo':>8}{'history':>9}{'turn 1':>8}{'spawn→':>9}{'restored':>9}"
          f"{'RSS':>9}{'RSS@' + str(args.turns):>9}{'CPU %':>7}{'× bare':>8}{'wake/s':>8}")
    ok = True
    for p in programs:
        screen_ratio = median[p.name] / median[bare.name]
        cpu_ratio = cpu[p.name][0] / cpu[bare.name][0] if cpu[bare.name][0] else float("inf")
        row = (f"{p.name:14}{ms(median[p.name]):>9}{screen_ratio:>8.2f}{ms(statistics.median(p.echoes)):>8}"
               + (f"{ms(statistics.median(p.restored)):>9}{ms(statistics.median(p.turns)):>8}"
                  f"{ms(statistics.median(p.turns_total)):>9}{ms(statistics.median(p.turns_restored)):>9}"
                  if p.whimbrel else f"{'':>9}{'':>8}{'':>9}{'':>9}")
               + f"{rss[p.name]:>6.1f} MB" + (f"{after_turns[p.name]:>6.1f} MB" if p.whimbrel else f"{'':>9}")
               + f"{cpu[p.name][0]:>7.2f}{cpu_ratio:>8.2f}{cpu[p.name][1]:>8.1f}")
        print(row)
        if p.name == "whimbrel":
            last = ", ".join(f"{name} {count}x" for name, count in sorted(p.last_marker.items()))
            print(f"{'':14}(the marker painted last: {last})")
            checks = {f"complete first screen <= {SCREEN_TARGET}x bare": screen_ratio <= SCREEN_TARGET,
                      f"idle CPU <= {CPU_TARGET}x bare": cpu_ratio <= CPU_TARGET,
                      f"idle RSS <= {RSS_TARGET:.0f} MB": rss[p.name] <= RSS_TARGET,
                      f"RSS after {args.turns} turns <= {RSS_AFTER_TURNS_TARGET:.0f} MB":
                          after_turns[p.name] <= RSS_AFTER_TURNS_TARGET}
    print()
    for text, passed in checks.items():
        print(f"{text}: {verdict(passed)}")
        ok = ok and passed

    probes = 1 if args.smoke else 5
    app_seconds, heavy = import_time("import app.cli, app.tui.app", runs=probes)
    textual_seconds, _ = import_time("import textual.app, textual.containers, textual.widgets", runs=probes)
    print(f"import app.cli + app.tui.app: {ms(app_seconds)}   textual: {ms(textual_seconds)}   "
          f"(medians of {probes}, fresh interpreters)")
    print(f"heavy SDKs in sys.modules after importing app.tui.app: {', '.join(heavy) or 'none'}"
          f"  ({'OK' if not heavy else 'they must load off the startup path'})")
    return 0 if args.smoke or (ok and not heavy) else 1


if __name__ == "__main__":
    raise SystemExit(main())
