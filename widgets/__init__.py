"""Textual widgets used by Whimbrel's screens."""
