"""Temporal workflows. Deterministic: no I/O, no env, no wall clock."""
