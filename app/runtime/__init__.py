"""The process's housekeeping, shared by every face: garbage collection at start and when idle, and the internal error log."""
