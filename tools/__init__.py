"""Whimbrel's built-in tools: JSON schemas, implementations, registry and execution pipeline.

Nothing here imports Textual: the engine and any headless frontend use these directly.
"""
