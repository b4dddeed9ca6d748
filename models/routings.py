"""The help every team's routings give their model on the route fields they share: the
question (``interruptRequest``) and the context manager. The software team's routings are
``teams/software/routings.py``'s; a declared team's are generated (``models/team_build.py``)."""

from __future__ import annotations

INTERRUPT_HELP = (
    "Set this (and no route) when you are uncertain about a decision and need a person's "
    "answer; offer structured choices and confirmations."
)
CONTEXT_HELP = "Set this (and no other route) to ask the context manager for missing context."
DISPATCH_INTERRUPT_HELP = (
    INTERRUPT_HELP + " Ask only about your own routing: the workflow raises your agents' own "
    "questions itself."
)
DISPATCHED_INTERRUPT_HELP = (
    "Set this (and not `result`) when you are uncertain about a decision and need a person's "
    "answer. Your dispatch node raises it for you, together with the questions of the other "
    "agents it ran; only your own answer comes back to you, and you run again with it."
)
