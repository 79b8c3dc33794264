"""The window's start and end: the first frame, keys typed before boot, the SDK warm-up, quitting on signals."""
