"""The words every room shares (Message, ToolCall): below the engine, providers, storage and tools.

Nothing here imports any other part of Whimbrel, so every room may depend on it.
"""
