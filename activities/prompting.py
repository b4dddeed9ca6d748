"""Prompt assembly: a sandboxed jinja2 environment over ``prompts/`` plus prompt contributors.

An agent's system prompt is its template (``prompts/workflow/<agent>.jinja``, which includes the
uncertainty, interrupt-guidance and example partials) followed by the contributor sections in
their stable order; the user message carries the goal and the request.

Text that comes from people or LLMs (goal, requests, answers, earlier outputs) is passed as data
and never compiled as a template, so ``{{ ... }}`` inside it stays literal.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import StrictUndefined, TemplateError
from jinja2.loaders import ChoiceLoader, FileSystemLoader, FunctionLoader
from jinja2.sandbox import SandboxedEnvironment

from agent_interrupts.activities.contributors import (
    ContributorRegistry,
    PromptContext,
    default_registry,
)
from agent_interrupts.activities.routing_info import interrupt_info, route_options
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.agent_types import AgentType
from agent_interrupts.models.errors import PromptRenderError
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupts import CUSTOM_OPTION_TEXT
from agent_interrupts.models.team import Node, Team

PROMPTS_DIR = Path(__file__).resolve().parents[1] / "prompts"
"""The templates, beside the package's subpackages (``agent_interrupts.prompts``): in the
repository the top-level ``prompts/`` folder, in an installed wheel the copy it ships."""


@dataclass(frozen=True)
class AgentPrompt:
    """The messages for one agent call, and the problems met while assembling them."""

    messages: list[dict[str, str]]
    warnings: list[str] = field(default_factory=list)
    """Failed or cut contributors: the prompt assembled without them (agents FR-005)."""
    sections: list[str] = field(default_factory=list)
    """Names of the contributors whose sections are in the system prompt, in order."""

    @property
    def system(self) -> str:
        return self.messages[0]["content"]


class PromptRenderer:
    """Renders an agent's system prompt (template + contributors) and its request message."""

    def __init__(
        self, prompts_dir: Path = PROMPTS_DIR, registry: ContributorRegistry | None = None
    ) -> None:
        self._prompts_dir = prompts_dir
        self._env = SandboxedEnvironment(
            loader=ChoiceLoader([FileSystemLoader(prompts_dir), FunctionLoader(self._team_source)]),
            undefined=StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            auto_reload=False,  # fingerprinted once (template_version): no stat per step
        )
        self._registry = registry if registry is not None else default_registry()
        self._team_sources: dict[str, str] = {}
        """Declared teams' templates by name (a name carries the team's content hash)."""
        self._templates: dict[tuple[str, str], str] = {}
        """Rendered agent templates: they depend only on the node, so once per worker."""
        self._files_sha256 = _files_sha256(prompts_dir)

    @property
    def registry(self) -> ContributorRegistry:
        return self._registry

    @property
    def template_version(self) -> str:
        """A fingerprint of the template files and the registered contributors (names and
        order): the same version renders the same messages from the same call input."""
        contributors = {
            (c.order, c.name, type(c).__qualname__)
            for agent in AgentType
            for c in self._registry.for_agent(agent)
        }
        text = json.dumps([self._files_sha256, sorted(contributors)])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def agent_messages(
        self, node: Node, call: AgentCall, team: Team = SOFTWARE_TEAM
    ) -> AgentPrompt:
        """System prompt (template, then contributor sections), then the request message."""
        assembled = self._registry.assemble(PromptContext.from_call(call, node.output_model, team))
        parts = [
            self.agent_template(node, team).rstrip(),
            *(text for _, text in assembled.sections),
        ]
        system = "\n\n".join(parts)
        user = self.render(
            "workflow/_request.jinja",
            goal=call.goal,
            node_id=call.node_id,
            request_json=json.dumps(call.request, indent=2, ensure_ascii=False),
            context=[c.to_wire() for c in call.context],
        )
        messages = [{"role": "system", "content": system + "\n"}, {"role": "user", "content": user}]
        messages += [{"role": "user", "content": m} for m in call.user_messages]
        return AgentPrompt(
            messages=messages,
            warnings=list(assembled.warnings),
            sections=[name for name, _ in assembled.sections],
        )

    def agent_template(self, node: Node, team: Team = SOFTWARE_TEAM) -> str:
        """The agent's own template, rendered with what its output model says about it (a
        declared team's templates come with the team the run pinned)."""
        key = (team.sha256, node.template)  # an extended team's software agents route further
        text = self._templates.get(key)
        if text is None:
            self._team_sources.update(team.templates)
            text = self.render(node.template, **template_values(node, team))
            self._templates[key] = text
        return text

    def _team_source(self, name: str) -> tuple[str, None, Callable[[], bool]] | None:
        source = self._team_sources.get(name)
        return (source, None, lambda: True) if source is not None else None

    def render(self, template: str, **values: object) -> str:
        try:
            return self._env.get_template(template).render(**values)
        except TemplateError as err:
            raise PromptRenderError(
                f"prompt template {template!r} failed to render: {err}. "
                f"Templates live in {self._prompts_dir}."
            ) from None


def _files_sha256(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def template_values(node: Node, team: Team = SOFTWARE_TEAM) -> dict[str, Any]:
    """What an agent template is given: names from the node and its output model, as data."""
    info = interrupt_info(node.output_model)
    dispatcher = team.dispatched.get(node.agent_type)
    return {
        "agent_type": str(node.agent_type),
        "team": team.name,
        "output_name": node.output_model.__name__,
        "routes": [o.alias for o in route_options(node.output_model)],
        "interrupt": asdict(info) if info is not None else None,
        "dispatcher": dispatcher,
        "custom_option_text": CUSTOM_OPTION_TEXT,
    }
