"""`whimbrel run`: one prompt in, text or JSON events out, on the same engine and store as the TUI."""
