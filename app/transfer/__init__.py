"""Export and import of workstreams between data directories (whimbrel export / import)."""
