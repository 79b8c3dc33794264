"""The UI-agnostic engine: messages, events and the turn loop. Never imports Textual."""
