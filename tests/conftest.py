"""Shared fixtures: the fake LLM server, snapshot baselines kept under snapshots/; and two plugins that
keep the suite honest: no process a test started outlives the session, no test reaches the network."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fake_llm.fixtures import fake_openai, fake_openai_session  # noqa: F401  (re-exported fixtures)
from tests.pg_fixtures import (keep_sqlite_only_tests_off_postgresql, own_pg_server, pg_server,  # noqa: F401
                               store_target)
from tests.fake_llm.anthropic_fixtures import fake_anthropic, fake_anthropic_session  # noqa: F401

pytest_plugins = ("tests.process_leaks", "tests.network_guard")

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT_DIR = ROOT / "snapshots"


def _snapshot_dirname(cls, *, test_location) -> str:
    """Keep SVG baselines in snapshots/<test module>/ instead of tests/**/__snapshots__."""
    return str(SNAPSHOT_DIR / Path(test_location.filepath).stem)


try:
    import pytest_textual_snapshot

    pytest_textual_snapshot.SVGImageExtension.dirname = classmethod(_snapshot_dirname)
except ImportError:  # pragma: no cover - the test extra installs it
    pass


FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Remember on the test item whether any of its phases failed (for `_isolated_env`'s clean-up)."""
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture(autouse=True)
def _isolated_env(request, tmp_path_factory, monkeypatch):
    """No test reads the developer's real config, data or keys. Its home (a store, ~250 KB) goes once
    the test has passed, as pytest's own `tmp_path` does under `tmp_path_retention_policy = "failed"`:
    one run's homes were 300 MB, kept whole whenever any test failed."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("WHIMBREL_DATA_DIR", str(home / "data"))
    # the default config location, empty: a WHIMBREL_CONFIG naming a missing file would be an error
    monkeypatch.delenv("WHIMBREL_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("WHIMBREL_IMAGES", "off")  # the developer's terminal never decides (tests force one)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    yield
    policy = request.config.getini("tmp_path_retention_policy")
    if policy == "none" or (policy == "failed" and not request.node.stash.get(FAILED, False)):
        shutil.rmtree(home, ignore_errors=True)


# -- a frozen event loop fails the test ------------------------------------------------------------
WATCHED = ("ui", "engine")  # the test folders whose async tests run under the loop watchdog
LOOP_HELD_LIMIT = 1.0  # seconds the loop may be held at once during such a test


def pytest_collection_modifyitems(config, items):
    """Every async UI and engine test runs with `loop_watchdog` (a freeze fails it, not a user)."""
    import inspect

    for item in items:
        path = Path(str(item.fspath))
        function = getattr(item, "function", None)
        if function is not None and inspect.iscoroutinefunction(function) and \
                path.is_relative_to(ROOT / "tests") and path.relative_to(ROOT / "tests").parts[0] in WATCHED:
            item.fixturenames.append("loop_watchdog")
    keep_sqlite_only_tests_off_postgresql(config, items)
    start_the_longest_first(items)


# The longest tests (`--durations`: each takes 20 s to two minutes on a loaded machine). xdist hands work out in
# collection order, so these start first and the run does not end waiting on one of them started last.
LONGEST = ("test_benchmarks.py", "serve/", "mcp/test_conformance.py", "ui/test_opencode_agent.py",
           "ui/test_external_agent.py", "ui/test_dormant_parts.py", "test_temp_cleanup.py", "e2e/",
           "acp/test_mcp_servers.py", "ui/test_long_transcript.py", "ui/test_follow_many_turns.py",
           "permissions/test_shell_e2e.py", "permissions/test_shell_fuzz.py", "mcp/test_cli.py")


def start_the_longest_first(items: list[pytest.Item]) -> None:
    """Move the tests of LONGEST to the front, keeping the order within both parts."""
    def longest(item: pytest.Item) -> bool:
        path = Path(str(item.fspath))
        return path.is_relative_to(ROOT / "tests") and \
            path.relative_to(ROOT / "tests").as_posix().startswith(LONGEST)

    items.sort(key=lambda item: not longest(item))


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only: the test inspects SQLite itself; its PostgreSQL run "
                            "(tests/pg_fixtures.py) is not collected")
    config.addinivalue_line("markers", "loop_held_known(reason): the event loop is known to be held over a "
                            "second during this test (the reason says by what); the watchdog warns instead of failing")
    config.addinivalue_line("markers", "holds_loop_on_purpose: the test holds its event loop itself (to test the "
                            "watchdog); its holds are left out of the suite's longest-hold figure")


LONGEST_HOLD = "loop_longest_hold"  # a watched test's longest hold, carried in its teardown report
KNOWN_HOLD = "loop_longest_known_hold"  # the same, for a test marked loop_held_known


def pytest_terminal_summary(terminalreporter):
    """The longest the event loop was held in any watched test of the run, and by which test, so the
    figure is known for the whole suite and not only when it passes the limit; the tests marked
    loop_held_known (a hold the test itself causes, or a known one) are reported apart. Reports carry
    the figures from xdist's workers."""
    for name, what in ((LONGEST_HOLD, "longest event-loop hold in a watched test"),
                       (KNOWN_HOLD, "longest in a test marked loop_held_known")):
        longest = max(((value, report.nodeid) for reports in terminalreporter.stats.values() for report in reports
                       for key, value in getattr(report, "user_properties", ()) if key == name), default=None)
        if longest is not None:
            terminalreporter.write_line(f"{what}: {longest[0] * 1000:.0f} ms ({longest[1]})")


@pytest.fixture
async def loop_watchdog(request):
    """Watches the test's event loop (app/engine/loop_watchdog.py); fails the test if any callback
    held it longer than LOOP_HELD_LIMIT, naming the stack that held it. A hold counts without the time
    the loop's thread waited for a CPU: on a loaded machine the clock also counts other processes' turns.

    Full garbage collections wait until the test is over, as the app in a terminal defers them to an
    idle moment (app/runtime/idle_gc.py): the test process holds far more objects than the app would (every
    module of the suite, earlier tests' leftovers), and one automatic collection among them took over
    a second on a loaded machine, which is no freeze of the app's."""
    import asyncio
    import gc

    from app.engine.loop_watchdog import LoopWatchdog
    from app.runtime.idle_gc import NEVER

    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], NEVER)
    watchdog = LoopWatchdog(asyncio.get_running_loop(), threshold=LOOP_HELD_LIMIT).start()
    try:
        yield watchdog
    finally:
        watchdog.stop()
        gc.set_threshold(*thresholds)
    if request.node.get_closest_marker("holds_loop_on_purpose") is None:
        known_hold = request.node.get_closest_marker("loop_held_known") is not None
        request.node.user_properties.append((KNOWN_HOLD if known_hold else LONGEST_HOLD, watchdog.longest_own))
    held = [hold for hold in watchdog.holds if hold.own > LOOP_HELD_LIMIT]  # the machine's load is no hold
    if held:
        worst = max(held, key=lambda hold: hold.own)
        known = request.node.get_closest_marker("loop_held_known")
        if known is None:
            pytest.fail(f"{worst.describe()}\n(longest hold allowed: {LOOP_HELD_LIMIT} s)", pytrace=False)
        import warnings

        warnings.warn(pytest.PytestWarning(f"known hold ({known.args[0]}): {worst.describe().splitlines()[0]}"))
