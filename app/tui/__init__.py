"""The window: the Textual App (app.py), its screens, and each feature's glue between the engine and the widgets."""
