"""What a prompt attaches: @file mentions, the workspace's file index, MCP resource mentions, images."""
