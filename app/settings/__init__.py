"""Settings: config.toml parsed into values (config.py and its sections), edits that keep the file's comments, and the data and config paths."""
