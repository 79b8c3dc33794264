"""OAuth for MCP HTTP/SSE servers: settings, the per-server token file, the localhost callback, the flow.

`settings` and `store` and `callback` are plain Python; `flow` imports the `mcp` SDK and is loaded on
the connect path only (from `app.mcp.transport`).
"""
