"""No garbage collection until the first frame is painted (app/runtime/startup_gc.py): the CLI holds them,
boot's start gives them back, and a CLI that ends early never leaves them off."""

from __future__ import annotations

import gc
import weakref

import pytest

from app.runtime import startup_gc
from app.cli import main
from tests.ui.helpers import booted, make_app


@pytest.fixture(autouse=True)
def collections_back_on():
    yield
    startup_gc.release()
    gc.enable()
    gc.unfreeze()  # what a test froze goes back to the oldest generation, to be collected


class Cycle:
    """An object that only a collection can free (it refers to itself)."""

    def __init__(self) -> None:
        self.me = self


def test_held_collections_stay_off_and_release_freezes_what_was_made_meanwhile():
    gc.collect()
    startup_gc.hold()
    assert startup_gc.held() and not gc.isenabled()
    made = [weakref.ref(Cycle()) for _ in range(5000)]  # far past the young threshold: a collection would have run
    assert all(ref() is not None for ref in made)  # none was collected while held
    startup_gc.release()
    assert gc.isenabled() and not startup_gc.held()
    gc.collect()
    assert all(ref() is not None for ref in made)  # frozen: no later collection scans (or frees) them


def test_release_without_hold_changes_nothing():
    gc.disable()  # turned off by someone else: not ours to turn back on
    startup_gc.release()
    assert not gc.isenabled()


def test_a_cli_that_ends_before_the_app_runs_leaves_collections_on(tmp_path, capsys):
    assert main(["--config", str(tmp_path / "missing.toml")]) == 2
    assert "missing.toml" in capsys.readouterr().err
    assert gc.isenabled() and not startup_gc.held()


async def test_boot_gives_back_the_collections_the_cli_held(tmp_path):
    app = make_app(tmp_path)
    startup_gc.hold()
    async with app.run_test() as pilot:
        await booted(pilot)
        assert gc.isenabled() and not startup_gc.held()
