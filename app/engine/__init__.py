"""The UI-agnostic engine: events, sessions and the turn loop. Never imports Textual."""
