"""Memory: structured memories given by relevance, recall over all history, project
instructions (AGENTS.md) and skills. Below tools/ (the memory, recall and skill tools use it);
never imports the engine or Textual."""
