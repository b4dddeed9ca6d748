"""The software team's typed models, beside its file (``team.toml``) and its templates: the
names its file's ``classes`` give (requests, routings, questions, the final result), its
``AgentType`` enum and tables, its curated contexts. Each module builds on the generic models
(``agent_interrupts.models``), never the reverse; loading the package completes the generic
models whose fields name them (``agents.py``, ``questions.py``)."""

from agent_interrupts.teams.software import (
    agents,
    contexts,
    questions,
    requests,
    results,
    routings,
)

__all__ = ["agents", "contexts", "questions", "requests", "results", "routings"]
