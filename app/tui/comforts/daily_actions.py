"""The daily-driver actions of the window: look (themes, keymap), settings, copying, pasted images.
The App holds one (the App passed in: its options, keymap and Textual's App API); each action hands over
to its own module."""

from __future__ import annotations


class DailyActions:
    """Look, settings, copying and pasted images for one App."""

    def __init__(self, app) -> None:
        self.app = app

    def apply_look(self) -> None:
        """Whimbrel's themes and the configured one (app/tui/comforts/theming.py), the [keymap]
        (app/tui/commands/keymap.py)."""
        from app.tui.commands.keymap import apply_keymap
        from app.tui.comforts.theming import apply_theme, register_themes

        app = self.app
        register_themes(app)
        app.configured_keymap = dict(getattr(app.options.config, "keymap", None) or {})
        problem = apply_theme(app, getattr(app.options.config, "theme", None))
        if problem:
            app.notify(problem, severity="warning", timeout=15)
        apply_keymap(app, app.configured_keymap)

    async def open_settings(self) -> None:
        """The settings screen (/settings, the palette): app/tui/comforts/settings_dialog.py."""
        from app.tui.comforts.settings_dialog import open_settings

        await open_settings(self.app)

    def attach_pasted_image(self, prompt, text: str) -> bool:
        """A pasted image path (a dropped file) attaches the image: app/tui/comforts/image_attach.py."""
        from app.tui.comforts.image_attach import attach_pasted

        return attach_pasted(self.app, prompt, text)

    def copy_reply(self) -> None:
        from app.tui.comforts.copying import copy_last_reply

        copy_last_reply(self.app)

    def copy_code(self) -> None:
        from app.tui.comforts.copying import copy_code_block

        copy_code_block(self.app)

    def change_theme(self) -> None:
        """The palette's "Theme": Whimbrel's picker, with a live preview, saved to config.toml."""
        from app.tui.comforts.theming import open_theme_picker

        open_theme_picker(self.app)
