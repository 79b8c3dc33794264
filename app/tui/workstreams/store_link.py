"""The window's side of the team store's connection: the banner, prompts kept, and catching up after.

When the store's server stops answering (AsyncStore's `link`, app/storage/reachability.py), the
banner above the status bar says so and counts down to the next try (widgets/store_banner.py). A
prompt sent meanwhile is not sent: it stays in the prompt box, and a notice says why. Refusing,
rather than holding it to send later, keeps the text where the user sees it and can edit, copy or
keep it across a restart of the window; a held prompt would live only in this process (the store, the
one place that keeps things, is the part that is down) and would go to the model minutes later,
unasked. Once a try succeeds, the banner clears, a notice says the store is back, the leases are
refreshed at once and read-only panes re-read what was written meanwhile.
"""

from __future__ import annotations

from widgets.store_banner import StoreBanner


class StoreLinkWiring:
    """The banner, the refused prompts and the catch-up, for one App (passed in)."""

    def __init__(self, app) -> None:
        self.app = app
        self._was_reachable = True

    @property
    def link(self):
        return getattr(self.app.store, "link", None)

    @property
    def reachable(self) -> bool:
        return self.link is None or self.link.reachable

    def start(self) -> None:
        """Once the store is open: its link's changes redraw the banner."""
        if self.link is not None:
            self.link.on_change = self.changed

    def changed(self) -> None:
        link = self.link
        if not self.app.screen_stack:  # quitting: the screens are gone
            return
        banners = self.app.main_screen.query(StoreBanner)
        if banners:
            banners.first().show_link(link)
        if link.reachable and not self._was_reachable:
            self.app.notify("The team store answers again: prompts are sent and saved as before.",
                            title="Store reconnected", timeout=8)
            self.app.ownership.after_outage()
        self._was_reachable = link.reachable

    def refuse(self, workstream, text: str) -> bool:
        """While the store does not answer, `text` (a prompt, a # note) is not sent: it goes back to the
        workstream's prompt box, a notice says why, and the store is tried at once. False when it answers."""
        if self.reachable:
            return False
        view = self.app.main_screen.view_for(workstream.id) if workstream is not None else None
        if view is not None:
            view.prompt.give_back(text)
        self.app.notify("Not sent: the team store does not answer. Your text stays in the prompt box: "
                        "send it again once the store is back.", severity="warning", timeout=10)
        self.link.retry_now()
        return True
