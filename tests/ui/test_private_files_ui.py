"""The window says when it found Whimbrel's files readable by other users, and leaves them private."""

from __future__ import annotations

import os
import stat

from app.storage.store import Store
from tests.ui.helpers import make_app, wait_for


async def test_loose_file_modes_are_tightened_and_said_at_start(fake_openai, tmp_path):
    data = tmp_path / "data"
    Store(data / "whimbrel.db").close()
    os.chmod(data, 0o755)
    os.chmod(data / "whimbrel.db", 0o644)
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await wait_for(pilot, lambda: any("yours alone" in n.message and "whimbrel.db (0644)" in n.message
                                          for n in app._notifications), message="the notice")
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "whimbrel.db").stat().st_mode) == 0o600
