"""First paint with 10 configured MCP servers (3 slow, 1 broken) against first paint with none.

    .venv/bin/python benchmarks/mcp_startup.py [--runs 7]

Both runs are the real `whimbrel` in a pty (see benchmarks/startup.py for how first paint is
timed). The loaded config has ten stdio servers: six answer at once, three take 5 s before their
handshake (tests/mcp/crashy_server.py --delay 5), one is a command that does not exist. MCP
connects in the background, so first paint, and the moment the prompt takes typing, should not
move. Prints both medians and the ratio (target <= 1.1).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.startup import BIN, Program, time_to_first_paint  # noqa: E402

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


def program(name: str, tmp: Path, config: str) -> Program:
    work, data = tmp / name / "work", tmp / name / "data"
    work.mkdir(parents=True)
    config_path = tmp / name / "config.toml"
    config_path.write_text(config)
    return Program(name, [str(BIN / "whimbrel"), "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                          "--workdir", str(work), "--data-dir", str(data), "--config", str(config_path)],
                   ready_marker=b"Ask for work")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="whimbrel-mcp-bench-") as tmp:
        none = program("no servers", Path(tmp), "# no MCP servers\n")
        ten = program("10 servers", Path(tmp), servers_toml())
        programs = (none, ten)
        for each in programs:  # warm-up
            time_to_first_paint(each)
        paint: dict[str, list[float]] = {p.name: [] for p in programs}
        ready: dict[str, list[float]] = {p.name: [] for p in programs}
        print(f"{'run':>4}  {'paint, none':>12}  {'paint, 10':>10}  {'prompt, none':>13}  {'prompt, 10':>11}")
        for run in range(args.runs):
            for each in (programs if run % 2 == 0 else programs[::-1]):
                painted, ready_at = time_to_first_paint(each)
                paint[each.name].append(painted)
                ready[each.name].append(ready_at or painted)
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
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
