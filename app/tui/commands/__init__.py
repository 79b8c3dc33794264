"""What the user asks for: slash commands, the command palette, the keymap."""
