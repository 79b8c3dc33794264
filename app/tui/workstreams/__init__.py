"""Workstreams and their panes: external agents, sub-agents' panes, workspace operations, ownership, the tool mode."""
