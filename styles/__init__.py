"""Textual CSS files, one per screen or widget family."""

from pathlib import Path

STYLES_DIR = Path(__file__).parent
