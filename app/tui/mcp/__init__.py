"""The window's side of MCP: connecting the configured servers and answering their requests to the client."""
