"""The ground floor, imported by every layer and by nothing below it: the pydantic types on the
wire (agent calls, requests, results, questions, answers, state, notifications, teams declared
as data and built into models), the one error hierarchy (``errors.py``), the timeouts and retry
policies (``policies.py``), the sizes at the door (``limits.py``), ids, and the pure rules every
layer applies alike (an answer against its question, exactly one route, a team's node table).
docs/layout.md names every module."""
