"""Whimbrel: a terminal workspace for LLM agents."""

__version__ = "0.1.0"
