"""Checkpoints of each turn's changes to the workspace, rewind of files and conversation, forks.

A shadow git repository per workspace, kept in Whimbrel's data dir (never the user's `.git`),
records the whole tree before and after every turn that changed something, so changes made by
shell commands are captured exactly like those of the file tools.
"""
