"""The daily-driver actions of the app: look (themes, keymap), settings, copying, pasted
images. A mixin of WhimbrelApp, so app/tui/app.py stays short; each action hands over to its own module."""

from __future__ import annotations


class DailyActions:
    """Needs the app's `options` and Textual's App API (notify, set_keymap, push_screen…)."""

    configured_keymap: dict[str, str]

    def _apply_look(self) -> None:
        """Whimbrel's themes and the configured one (app/tui/comforts/theming.py), the [keymap]
        (app/tui/commands/keymap.py)."""
        from app.tui.commands.keymap import apply_keymap
        from app.tui.comforts.theming import apply_theme, register_themes

        register_themes(self)
        self.configured_keymap = dict(getattr(self.options.config, "keymap", None) or {})
        problem = apply_theme(self, getattr(self.options.config, "theme", None))
        if problem:
            self.notify(problem, severity="warning", timeout=15)
        apply_keymap(self, self.configured_keymap)

    async def open_settings(self) -> None:
        """The settings screen (/settings, the palette): app/tui/comforts/settings_dialog.py."""
        from app.tui.comforts.settings_dialog import open_settings

        await open_settings(self)

    def attach_pasted_image(self, prompt, text: str) -> bool:
        """A pasted image path (a dropped file) attaches the image: app/tui/comforts/image_attach.py."""
        from app.tui.comforts.image_attach import attach_pasted

        return attach_pasted(self, prompt, text)

    def action_copy_reply(self) -> None:
        from app.tui.comforts.copying import copy_last_reply

        copy_last_reply(self)

    def action_copy_code(self) -> None:
        from app.tui.comforts.copying import copy_code_block

        copy_code_block(self)

    def action_change_theme(self) -> None:
        """The palette's "Theme": Whimbrel's picker, with a live preview, saved to config.toml."""
        from app.tui.comforts.theming import open_theme_picker

        open_theme_picker(self)
