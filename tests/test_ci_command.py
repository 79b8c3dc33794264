"""`.ci/run` runs the README's test command verbatim, and that command installs every peer the tests
need (so no test has to install anything)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command() -> str:
    lines = (ROOT / "README.md").read_text().splitlines()
    return next(line for line in lines if line.startswith("python3 -m venv .venv") and "pytest" in line)


def test_ci_runs_the_readme_test_command_verbatim():
    assert readme_test_command() in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_test_command_installs_the_npm_peers_before_pytest():
    command = readme_test_command()
    installs, pytest_at = command.split(" && "), command.index("-m pytest")
    assert "npm ci --prefix tests/mcp/node --no-audit --no-fund --loglevel=error" in installs
    assert "npm ci --prefix tests/acp/node --no-audit --no-fund --loglevel=error" in installs  # opencode
    assert any(step.startswith("npm install --prefix") and "readabilipy" in step for step in installs)
    assert all(command.index(step) < pytest_at for step in installs if step.startswith("npm"))


def test_the_quickstart_install_shows_its_progress():
    """The first command a new user runs installs for about a minute: pip's own progress (each package
    collected and downloaded) shows it is working, so the command must not quiet pip."""
    lines = (ROOT / "README.md").read_text().splitlines()
    quickstart = next(line for line in lines if line.startswith("python3 -m venv") and line.endswith("bin/whimbrel"))
    install = next(step for step in quickstart.split(" && ") if "pip install" in step)
    assert not {"-q", "-qq", "--quiet"} & set(install.split()), install
