"""The OS sandbox for commands (bubblewrap on Linux): it confines, the permission engine decides."""
