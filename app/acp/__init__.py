"""The Agent Client Protocol: Whimbrel as an ACP agent (`whimbrel acp`, driven by editors)."""

# The stored config keys of a workstream driven by an external agent: the agent's name and its session id.
AGENT_KEY, AGENT_SESSION_KEY = "acp_agent", "acp_session_id"
