"""Pydantic types shared by workflows, activities, the worker and the client SDK."""
