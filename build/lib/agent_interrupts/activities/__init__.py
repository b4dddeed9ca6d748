"""Temporal activities: everything that does I/O (LLM calls, templates)."""
