"""The Agent Client Protocol: Whimbrel as an ACP agent (`whimbrel acp`, driven by editors)."""
