"""`whimbrel serve`: the window served to a browser (textual-serve), behind a token and an Origin check."""
