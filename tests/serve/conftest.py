"""The browser for tests/serve: one headless Chromium per module, a fresh context per test, and each
open page's screenshot saved in the test's tmp dir when the test fails."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.serve.served import CHROMIUM, CHROMIUM_ARGS, Served, have_browser


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="module")
def chromium() -> Iterator:
    reason = have_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator:
    """Start `whimbrel serve -- WINDOW_ARGS` (any number of times); each is stopped after the test."""
    started: list[Served] = []

    def start(*window: str, serve_args: tuple[str, ...] = ()) -> Served:
        started.append(Served(tmp_path, *window, serve_args=serve_args))
        return started[-1]

    yield start
    for served in started:
        served.close()


@pytest.fixture
def browser(chromium, serve, request, tmp_path: Path) -> Iterator:  # after `serve`: shots before it stops
    """A fresh browser context (its own cookies); screenshots of its pages if the test failed."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        yield context
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            for number, page in enumerate(context.pages):
                if not page.is_closed():
                    shot = tmp_path / f"browser-tab-{number}.png"
                    page.screenshot(path=str(shot))
                    print(f"screenshot: {shot}")
        context.close()
