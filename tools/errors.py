"""The one exception a tool raises for a failure the model can act on."""

from __future__ import annotations


class ToolError(Exception):
    """A failure explained in words; the pipeline returns `str(error)` to the model as an error result."""
