"""Settings: config.toml parsed into values (config.py, its lines in toml_lines.py), edits that keep
the file's comments (config_edit.py), an MCP server's OAuth table (mcp_oauth.py), the data and config paths."""
