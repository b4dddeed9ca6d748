"""Process-level wiring: settings from the environment, the embedded dev server, the worker."""
