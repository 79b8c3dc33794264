"""/settings: the settings screen opened with the config's values, and what it returns applied (theme
and keys at once) and written to config.toml off the UI thread (app/tui/comforts/settings_file.py)."""

from __future__ import annotations

from app.tui.comforts.settings_file import write_settings


def open_settings(app):
    """The settings screen (a coroutine to await); what is saved is written off the UI thread, the theme
    and keys apply now."""
    import asyncio

    from app.settings.config import Config
    from app.tui.commands.keymap import all_bindings
    from app.tui.screens.settings import SettingsScreen
    from app.tui.comforts.theming import theme_names

    config = app.options.config or Config(path=app.options.config_path)
    models = sorted(config.models)

    async def save(saved) -> None:
        from app.settings.config import ConfigError, load_config

        try:
            await asyncio.to_thread(write_settings, app.options.config_path, saved.changes, saved.keymap)
            app.options.config = await asyncio.to_thread(load_config, app.options.config_path)
        except (OSError, ValueError, ConfigError) as error:
            app.notify(f"Could not save the settings to {app.options.config_path}: {error}", severity="error")
            return
        if ("ui", "theme") in saved.changes:
            app.theme = saved.changes[("ui", "theme")]
        if saved.keymap:
            app.configured_keymap = {k: v for k, v in {**app.configured_keymap, **saved.keymap}.items() if v}
            app.set_keymap(app.configured_keymap)
        later = [key for (_section, key) in saved.changes if key != "theme"]
        app.notify(f"Saved to {app.options.config_path}." +
                   (f" {', '.join(later)}: from the next start." if later else ""))

    def done(saved) -> None:
        if saved is not None and (saved.changes or saved.keymap):
            app.run_worker(save(saved), group="settings", exit_on_error=False)

    async def show() -> None:
        bindings = await asyncio.to_thread(all_bindings)  # reads every dialog's source: off the UI thread
        screen = SettingsScreen(config, theme_names(app), models, bindings, config_path=app.options.config_path,
                                theme=app.theme)
        await app.push_screen(screen, callback=done)

    return show()
