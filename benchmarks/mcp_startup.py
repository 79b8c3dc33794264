"""First paint with 10 configured MCP servers (3 slow, 1 broken) against first paint with none.

    .venv/bin/python benchmarks/mcp_startup.py [--runs 7] [--smoke]

Both runs are the real `whimbrel` in a pty (benchmarks/pty_terminal.py): first paint is the moment
the prompt's placeholder is on screen, and the prompt takes typing once a key typed then is echoed.
The loaded config has ten stdio servers: six answer at once, three take 5 s before their
handshake (tests/mcp/crashy_server.py --delay 5), one is a command that does not exist. MCP
connects in the background, so first paint, and the moment the prompt takes typing, should not
move. Prints both medians and the ratio (target <= 1.1).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.pty_terminal import Terminal  # noqa: E402

BIN = Path(sys.executable).parent
READY = b"Ask for work"  # the prompt's placeholder: on the first frame
KEY = "ж".encode()  # a key whose echo cannot be mistaken for anything else on screen

TARGET = 1.1
SERVER = ROOT / "tests" / "mcp" / "crashy_server.py"


def servers_toml() -> str:
    """Ten [mcp.servers.*] tables: six quick, three slow (5 s handshake), one broken."""
    tables = []
    for index in range(6):
        tables.append(f'[mcp.servers.quick{index}]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n')
    for index in range(3):
        tables.append(f'[mcp.servers.slow{index}]\ncommand = "{sys.executable}"\n'
                      f'args = ["{SERVER}", "--delay", "5"]\n')
    tables.append('[mcp.servers.broken]\ncommand = "whimbrel-no-such-mcp-server"\n')
    return "\n".join(tables)


@dataclass
class Program:
    """`whimbrel` with one config: its command line and where it runs."""

    name: str
    argv: list[str]
    cwd: Path


def program(name: str, tmp: Path, config: str) -> Program:
    work, data = tmp / name / "work", tmp / name / "data"
    work.mkdir(parents=True)
    config_path = tmp / name / "config.toml"
    config_path.write_text(config)
    return Program(name, [str(BIN / "whimbrel"), "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                          "--workdir", str(work), "--data-dir", str(data), "--config", str(config_path)],
                   work)


def time_to_first_paint(each: Program) -> tuple[float, float]:
    """Seconds from the spawn until the first frame, and until a key typed then is echoed."""
    with Terminal(each.name, each.argv, each.cwd) as terminal:
        painted = terminal.wait_for({"paint": READY})["paint"]
        offset, _ = terminal.send(KEY)
        echoed = terminal.wait_for({"echo": KEY}, since=offset)["echo"]
        return painted, echoed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--smoke", action="store_true", help="one run, no warm-up, no target (CI: it still works)")
    args = parser.parse_args(argv)
    runs = 1 if args.smoke else args.runs
    with tempfile.TemporaryDirectory(prefix="whimbrel-mcp-bench-") as tmp:
        none = program("no servers", Path(tmp), "# no MCP servers\n")
        ten = program("10 servers", Path(tmp), servers_toml())
        programs = (none, ten)
        for each in programs if not args.smoke else ():  # warm-up
            time_to_first_paint(each)
        paint: dict[str, list[float]] = {p.name: [] for p in programs}
        ready: dict[str, list[float]] = {p.name: [] for p in programs}
        print(f"{'run':>4}  {'paint, none':>12}  {'paint, 10':>10}  {'prompt, none':>13}  {'prompt, 10':>11}")
        for run in range(runs):
            for each in (programs if run % 2 == 0 else programs[::-1]):
                painted, ready_at = time_to_first_paint(each)
                paint[each.name].append(painted)
                ready[each.name].append(ready_at)
            print(f"{run + 1:>4}  {paint[none.name][-1]:>11.3f}s  {paint[ten.name][-1]:>9.3f}s"
                  f"  {ready[none.name][-1]:>12.3f}s  {ready[ten.name][-1]:>10.3f}s")
    med = {name: statistics.median(values) for name, values in paint.items()}
    med_ready = {name: statistics.median(values) for name, values in ready.items()}
    ratio = med[ten.name] / med[none.name]
    ready_ratio = med_ready[ten.name] / med_ready[none.name]
    print(f"first paint: none {med[none.name]:.3f}s, 10 servers {med[ten.name]:.3f}s, "
          f"ratio {ratio:.2f} (target <= {TARGET}) {'OK' if ratio <= TARGET else 'OVER TARGET'}")
    print(f"prompt ready: none {med_ready[none.name]:.3f}s, 10 servers {med_ready[ten.name]:.3f}s, "
          f"ratio {ready_ratio:.2f} (for information)")
    return 0 if ratio <= TARGET or args.smoke else 1


if __name__ == "__main__":
    raise SystemExit(main())
