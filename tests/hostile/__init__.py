"""Hostile peers: fault-injecting model and MCP servers for tests."""
