"""The offline model's question of a declared team's agent: built from that team's own words.

Which one an agent asks follows from its team's file (``declares_its_question``): an agent whose
file names one of the package's typed models (``classes``, as the software team's agents do)
asks the package's one offline question (an ``approach`` choice and an ``add-tests``
confirmation, ``offline_model._Writer.interrupt``). An agent whose question is declared in its
team's file asks about its declared question fields instead: an enum field is a choice of its
values, a yes/no field a confirmation, and another field (text, a number, a list) a choice
whether to go on with what the agent wrote in it and a confirmation of it. An agent that
declares no question fields asks where to go next among its own routes (their descriptions are
the options).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agent_interrupts.models.interrupts import (
    CUSTOM_OPTION_TEXT,
    InterruptRequestBase,
    OptionKey,
)
from agent_interrupts.models.package_models import package_model
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team_build import question_type

ASKED_BY_EVERY_QUESTION = frozenset(
    {"type", "reason", "choices", "confirmationItems", "contextForDecision"}
)
"""The fields every question has (JSON names): the rest of a question's are its own."""
_KEYS = (OptionKey.A, OptionKey.B, OptionKey.C, OptionKey.D)
"""The real options a choice may offer, in order."""


def declares_its_question(routing: type[Routing]) -> bool:
    """Whether the agent that answers with ``routing`` asks a question its team's file declares
    (a model generated from its ``question`` fields, none or some), rather than one of the
    package's typed questions its file names (``classes``)."""
    question = question_type(routing)
    return package_model(question.__name__, InterruptRequestBase) is not question


def declared_question(
    agent: str,
    goal: str,
    schema: Mapping[str, Any],
    written: Mapping[str, Any],
    routes: Sequence[str],
    deref: Callable[[Any], dict[str, Any]] = dict,
) -> dict[str, Any]:
    """The reason, context, choices and confirmations of ``agent``'s question: ``schema`` is
    its question's object schema, ``written`` the values already written for its own fields,
    ``routes`` the descriptions of its forward routes. At most as many choices and
    confirmations as ``schema`` admits."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    own = {k: deref(p) for k, p in properties.items() if k not in ASKED_BY_EVERY_QUESTION}
    choices: list[dict[str, Any]] = []
    confirmations: list[dict[str, Any]] = []
    details: list[str] = []
    for key, prop in own.items():
        values = [str(v) for v in prop.get("enum", [])]
        if len(values) >= 2:
            choices.append(_enum_choice(agent, key, prop, values, written.get(key)))
        elif prop.get("type") == "boolean":
            confirmations.append(_yes_no(agent, key, prop, written.get(key)))
        else:
            details.append(key)
    if details:
        key = details[0]
        choices.append(_detail_choice(agent, key, own[key], written.get(key)))
        if not confirmations:
            confirmations.append(_detail_confirmation(agent, key))
    if not own:
        choices.append(_route_choice(agent, goal, routes))
    about = next((p.get("description") for p in own.values() if p.get("description")), None)
    return {
        "reason": f"{agent} needs an answer before it goes on with '{goal}': "
        + (about[:1].lower() + about[1:] if about else "which way the work should go."),
        "contextForDecision": f"The goal '{goal}' does not settle it; {agent} asks about "
        + (", ".join(f"`{k}`" for k in own) if own else "its next step")
        + ".",
        "choices": choices[: _most(properties, "choices", len(choices))],
        "confirmationItems": confirmations[
            : _most(properties, "confirmationItems", len(confirmations))
        ],
    }


def _enum_choice(
    agent: str, key: str, prop: Mapping[str, Any], values: list[str], written: Any
) -> dict[str, Any]:
    offered = values[: len(_KEYS)]
    options = [{"key": k.value, "description": v} for k, v in zip(_KEYS, offered, strict=False)]
    recommended = _KEYS[offered.index(written)] if written in offered else _KEYS[0]
    return {
        "choiceId": _slug(key),
        "question": f"Which {_words(key)} should {agent} go on with?",
        "context": prop.get("description") or f"The {_words(key)}: one of {', '.join(values)}.",
        "options": [*options, {"key": "CUSTOM", "description": CUSTOM_OPTION_TEXT}],
        "recommended": recommended.value,
    }


def _yes_no(agent: str, key: str, prop: Mapping[str, Any], written: Any) -> dict[str, Any]:
    return {
        "confirmationId": _slug(key),
        "statement": prop.get("description") or f"{_words(key).capitalize()}: yes.",
        "context": f"{agent} wrote {'yes' if written is not False else 'no'} in `{key}`.",
        "defaultValue": written is not False,
        "impactIfNo": f"{agent} goes on as if `{key}` were no.",
    }


def _detail_choice(agent: str, key: str, prop: Mapping[str, Any], written: Any) -> dict[str, Any]:
    words = _words(key)
    about = (prop.get("description") or f"The {words}.").rstrip(".")
    return {
        "choiceId": _slug(key),
        "question": f"{about}: how should {agent} go on?",
        "context": f"{agent} wrote in `{key}`: {_shown(written)}",
        "options": [
            {"key": "A", "description": f"Go on with the {words} as {agent} wrote it"},
            {"key": "B", "description": f"Go on without the {words}"},
            {"key": "CUSTOM", "description": CUSTOM_OPTION_TEXT},
        ],
        "recommended": "A",
    }


def _detail_confirmation(agent: str, key: str) -> dict[str, Any]:
    words = _words(key)
    return {
        "confirmationId": f"{_slug(key)}-ok",
        "statement": f"{agent} may rely on the {words} it named",
        "context": f"The {words} is what {agent} asks about.",
        "defaultValue": True,
        "impactIfNo": f"{agent} goes on without relying on the {words}.",
    }


def _route_choice(agent: str, goal: str, routes: Sequence[str]) -> dict[str, Any]:
    ways = [r for r in dict.fromkeys(r.strip() for r in routes) if r][: len(_KEYS)]
    if len(ways) < 2:
        ways = ["Go on as planned", "Wait for more information before going on"]
    return {
        "choiceId": "next-step",
        "question": f"Where should {agent} go next with '{goal}'?",
        "context": f"{agent} declares no question fields; these are its ways on.",
        "options": [
            *({"key": k.value, "description": w} for k, w in zip(_KEYS, ways, strict=False)),
            {"key": "CUSTOM", "description": CUSTOM_OPTION_TEXT},
        ],
        "recommended": "A",
    }


def _most(properties: Mapping[str, Any], key: str, wanted: int) -> int:
    """How many items the schema admits in ``key`` (``wanted`` when it says nothing)."""
    prop = properties.get(key, {})
    return min(wanted, int(prop.get("maxItems", wanted)))


def _slug(key: str) -> str:
    """``riskyStep`` -> ``risky-step``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", key).lower()


def _words(key: str) -> str:
    """``riskyStep`` -> ``risky step``."""
    return _slug(key).replace("-", " ")


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(map(str, value)) or "nothing"
    return str(value)
