"""The corpus's session fixtures: one loopback listener, one fake model server and one `Corpus` (its batches
run once each, lazily) for the whole session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.security.harness import Listener, remove_tree
from tests.security.runner import Corpus
from tests.security.table import ALL


@pytest.fixture(scope="session")
def listener() -> Iterator[Listener]:
    with Listener() as running:
        yield running


@pytest.fixture(scope="session")
def corpus(fake_openai_session, listener, tmp_path_factory) -> Iterator[Corpus]:
    base = tmp_path_factory.mktemp("corpus")
    running = Corpus(ALL, fake_openai_session, listener, base)
    yield running
    running.close()
    remove_tree(base)
