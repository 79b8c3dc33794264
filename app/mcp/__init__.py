"""MCP client layer: server config, the connection manager (status, refresh, breaker), client
features (roots, sampling, elicitation, logging, progress) and the `whimbrel mcp` CLI.

Nothing here imports the `mcp` SDK at module import time: it is loaded on the connect path only.
"""
