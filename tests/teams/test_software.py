"""The software team's typed models live beside its file (``teams/software/``) and build on the
generic models, which import no team: loading the team's package registers its agents' names
and completes the generic fields whose types are its own (docs/teams.md)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agent_interrupts.models import agent_types, contexts, interrupts, requests, results, routings
from agent_interrupts.models.agent_types import AgentName
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.teams import software
from agent_interrupts.teams.software.agents import AgentType

GENERIC = (agent_types, contexts, interrupts, requests, results, routings)
"""The generic modules the software team's classes lived in before they moved beside its file."""
LOW = (
    "agent_call",
    "agent_types",
    "base",
    "code",
    "contexts",
    "interrupts",
    "limits",
    "requests",
    "results",
    "routing",
    "routings",
    "team_spec",
    "tools",
)
"""The generic models the team's modules import (pyproject's import-linter contract names them)."""


def _defined(module: ModuleType) -> set[str]:
    """Names ``module``'s own top-level statements define (classes, functions, constants)."""
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            found.add(node.name)
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            found |= {e.id for e in elements if isinstance(e, ast.Name)}
    return {name for name in found if not name.startswith("_")}


def _software_names() -> set[str]:
    """What the team's modules define, and at least what its file names (requests, routings)."""
    modules = [m for m in vars(software).values() if isinstance(m, ModuleType)]
    named = {n.request_model.__name__ for n in SOFTWARE_TEAM.nodes.values()}
    named |= {n.output_model.__name__ for n in SOFTWARE_TEAM.nodes.values()}
    named |= {
        "AgentType",
        "AnyInterruptRequest",
        "DiscoveryCollectorContext",
        "InterruptRouting",
        "OrchestratorCollectorResult",
        "TicketAgentInterruptRequest",
    }
    return {name for module in modules for name in _defined(module)} | named


@pytest.mark.parametrize("module", GENERIC, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_no_software_class_is_defined_in_the_generic_models(module: ModuleType) -> None:
    assert _defined(module) & _software_names() == set()


def test_the_generic_models_load_without_any_team() -> None:
    script = (
        "import json, sys\n"
        + "".join(f"import agent_interrupts.models.{m}\n" for m in LOW)
        + "teams = [m for m in sys.modules if m.startswith('agent_interrupts.teams')]\n"
        + "names = agent_interrupts.models.agent_types.typed_agent_names()\n"
        + "print(json.dumps(sorted(teams) + sorted(names)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout) == []


def test_loading_the_team_completes_the_generic_models_it_names() -> None:
    """In a fresh interpreter: the team's package alone, then the generic models decode into it."""
    script = """
import json
import agent_interrupts.teams.software
from agent_interrupts.models.interrupts import AgentQuestion, DispatchInterruptRequest
from agent_interrupts.models import interrupts, results
from agent_interrupts.models.results import Delegation

generic = [*vars(interrupts).values(), *vars(results).values()]
models = [m for m in generic if isinstance(m, type) and hasattr(m, "__pydantic_complete__")]
incomplete = [m for m in models if not m.__pydantic_complete__]
assert not incomplete, incomplete

base = {"type": "HUMAN_REVIEW", "reason": "r", "choices": [], "confirmationItems": [],
        "contextForDecision": "c"}
own = {"filesToModify": [], "testStrategies": [], "implementationApproaches": []}
asked = {**base, "routingDecisions": [], "targetAgentContext": "t", "agentQuestions": [
    {"agentKey": "ticket-agent-1", "nodeId": "n",
     "request": {**base, **own, "origin": "TICKET_AGENT"}},
    {"agentKey": "scout-1", "nodeId": "m", "request": {**base, "origin": "SCOUT"}},
]}
question = DispatchInterruptRequest.model_validate(asked)
delegation = Delegation.model_validate({"delegationRationale": "d", "taskDecomposition": [],
    "contextToPass": [], "assignments": [{"agentType": "TICKET_AGENT", "task": "t"}]})
found = [type(q.request) for q in question.agent_questions]
found.append(type(delegation.assignments[0].agent_type))
print(json.dumps([f"{t.__module__}.{t.__name__}" for t in found]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [
        "agent_interrupts.teams.software.questions.TicketAgentInterruptRequest",
        "agent_interrupts.models.interrupts.TeamInterruptRequest",
        "agent_interrupts.teams.software.agents.AgentType",
    ]


def test_the_software_teams_names_decode_to_its_members() -> None:
    from pydantic import TypeAdapter

    names = TypeAdapter(list[AgentName]).validate_python(["TICKET_AGENT", "SCOUT"])
    assert names[0] is AgentType.TICKET_AGENT
    assert AgentType.__module__ == "agent_interrupts.teams.software.agents"
    assert type(names[1]) is str
