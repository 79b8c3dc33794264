"""Themes: every Textual theme plus Whimbrel's own light and dark; the configured one is applied at
start, and a choice made in the picker is written to config.toml (`[ui] theme`) keeping its comments."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App
from textual.theme import Theme

WHIMBREL_THEMES = (
    Theme(name="whimbrel-dark", primary="#5FA8D3", secondary="#C9A66B", accent="#E07A5F",
          warning="#E9C46A", error="#E76F51", success="#81B29A", foreground="#E6E1D6",
          background="#161A1D", surface="#1F2428", panel="#2A3036", dark=True),
    Theme(name="whimbrel-light", primary="#1F6F9F", secondary="#8A6A2F", accent="#B5523B",
          warning="#9C6B00", error="#B3261E", success="#2E7D4F", foreground="#1D2124",
          background="#F7F4EE", surface="#EFEBE3", panel="#E2DDD2", dark=False),
)


def register_themes(app: App) -> None:
    """Make Whimbrel's themes available beside Textual's."""
    for theme in WHIMBREL_THEMES:
        app.register_theme(theme)


def theme_names(app: App) -> list[str]:
    """Every theme the picker offers: Whimbrel's first, then Textual's, alphabetically."""
    ours = [theme.name for theme in WHIMBREL_THEMES]
    return ours + sorted(name for name in app.available_themes if name not in ours)


def apply_theme(app: App, name: str | None) -> str | None:
    """Use the configured theme; returns a problem to show when the name is not a known theme."""
    if not name:
        return None
    if name not in app.available_themes:
        return (f"config.toml [ui] theme = {name!r} is not a theme; using {app.theme!r}. "
                "Pick one from the palette (Theme…).")
    app.theme = name
    return None


def _write_theme(path: Path, name: str) -> None:
    from app.settings.config_edit import edit_config

    def change(doc) -> None:
        import tomlkit

        if "ui" not in doc:
            doc.add("ui", tomlkit.table())
        doc["ui"]["theme"] = name

    edit_config(path, change)


async def save_theme(path: Path, name: str) -> None:
    """Write `[ui] theme = name` to config.toml off the UI thread, comments and order kept."""
    await asyncio.to_thread(_write_theme, Path(path), name)


def open_theme_picker(app) -> None:
    """The picker (palette "Theme", Textual's change_theme action); a kept theme is saved."""
    from app.tui.screens.theme_picker import ThemePickerScreen

    def kept(name: str | None) -> None:
        if name:
            app.run_worker(_keep(app, name), group="theme", exit_on_error=False)

    app.push_screen(ThemePickerScreen(theme_names(app)), callback=kept)


def use_theme(app, name: str) -> str | None:
    """/theme NAME: use the named theme and save it; returns a problem when no theme has that name."""
    if name not in app.available_themes:
        close = [known for known in theme_names(app) if name.lower() in known.lower()]
        hint = f" Did you mean {', '.join(close[:5])}?" if close else " /theme alone lists them with a preview."
        return f"No theme is called {name!r}.{hint}"
    app.theme = name
    app.run_worker(_keep(app, name), group="theme", exit_on_error=False)
    return None


async def _keep(app, name: str) -> None:
    path = app.options.config_path
    try:
        await save_theme(path, name)
    except (OSError, ValueError) as error:  # unwritable file, or a config tomlkit cannot parse
        app.notify(f"Theme {name} is used now but could not be saved to {path}: {error}", severity="warning")
        return
    app.notify(f"Theme {name} saved to {path}.")
