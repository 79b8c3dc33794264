"""Textual screens."""
