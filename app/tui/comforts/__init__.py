"""Daily comforts: copying, the external editor, attaching images, themes, the terminal's attention,
the settings screen and file."""
