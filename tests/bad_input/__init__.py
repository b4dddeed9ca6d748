"""Bad-input suite (issue 8): hypothesis-generated malformed payloads against a real dev server."""
