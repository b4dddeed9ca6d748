"""Bad-input suite: hypothesis-generated malformed payloads against a real dev server."""
