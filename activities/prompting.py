"""Prompt assembly: a sandboxed jinja2 environment over ``prompts/`` plus prompt contributors.

An agent's system prompt is its team's template for it (``teams/<team>/<agent>.jinja``, which
extends ``prompts/workflow/_agent_base.jinja`` and its partials) followed by the contributor
sections in their stable order; the user message carries the goal and the request. A pinned team's
template is untrusted input: it renders in a bounded process of its own
(``activities/template_sandbox.py``), once per worker, never in the worker itself.

Text that comes from people or LLMs (goal, requests, answers, earlier outputs) is passed as data
and never compiled as a template, so ``{{ ... }}`` inside it stays literal.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from jinja2 import ChoiceLoader, DictLoader, StrictUndefined, TemplateError
from jinja2.loaders import FileSystemLoader
from jinja2.sandbox import SandboxedEnvironment
from pydantic_core import to_json

from agent_interrupts.activities.contributors import (
    ContributorRegistry,
    PromptContext,
    default_registry,
)
from agent_interrupts.activities.routing_info import interrupt_info, route_options
from agent_interrupts.activities.template_sandbox import (
    DEFAULT_BOUNDS,
    RenderBounds,
    UntrustedTemplate,
    render_untrusted,
    render_untrusted_now,
)
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.errors import PromptRenderError
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupts import CUSTOM_OPTION_TEXT
from agent_interrupts.models.team import Node, Team
from agent_interrupts.models.team_files import software_partials

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


PACKAGE_TEMPLATES: dict[str, str] = {**software_partials(), **SOFTWARE_TEAM.templates}
"""The software team's templates and the partials beside its file that they extend, from the
package's own team folder: trusted, so they render in the worker (a team that extends it carries
the same text under the same names)."""


class PromptRenderer:
    """Renders an agent's system prompt (template + contributors) and its request message."""

    def __init__(
        self,
        prompts_dir: Path = PROMPTS_DIR,
        registry: ContributorRegistry | None = None,
        bounds: RenderBounds = DEFAULT_BOUNDS,
    ) -> None:
        self._prompts_dir = prompts_dir
        self._bounds = bounds
        """A declared team's template's render: its time, output and memory."""
        self._env = SandboxedEnvironment(
            loader=ChoiceLoader([FileSystemLoader(prompts_dir), DictLoader(PACKAGE_TEMPLATES)]),
            undefined=StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            auto_reload=False,  # fingerprinted once (template_version): no stat per step
        )
        self._registry = registry if registry is not None else default_registry()
        self._rendering: dict[tuple[str, str], asyncio.Task[str]] = {}
        """Declared teams' templates whose bounded render runs now."""
        self._templates: dict[tuple[str, str], str] = {}
        """Rendered agent templates: they depend only on the node, so once per worker."""
        self._files_sha256 = _files_sha256(prompts_dir)
        self._version: tuple[tuple[str, ...], str] | None = None
        """``template_version`` and the contributors it was taken with: computed once, again
        only when a contributor is registered."""

    @property
    def registry(self) -> ContributorRegistry:
        return self._registry

    @property
    def template_version(self) -> str:
        """A fingerprint of the template files and the registered contributors (names and
        order): the same version renders the same messages from the same call input."""
        names = tuple(self._registry.names)  # contributors are only ever added
        if self._version is None or self._version[0] != names:
            self._version = (names, self._fingerprint())
        return self._version[1]

    def _fingerprint(self) -> str:
        contributors = {
            (c.order, c.name, type(c).__qualname__)
            for agent in SOFTWARE_TEAM.nodes
            for c in self._registry.for_agent(agent, SOFTWARE_TEAM)
        }
        software = sorted(PACKAGE_TEMPLATES.items())  # the built-in team's, from its folder
        text = json.dumps([self._files_sha256, software, sorted(contributors)])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def agent_messages(self, node: Node, call: AgentCall, team: Team) -> AgentPrompt:
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
            request_json=request_json(call.request),
            context=[c.to_wire() for c in call.context],
        )
        messages = [{"role": "system", "content": system + "\n"}, {"role": "user", "content": user}]
        messages += [{"role": "user", "content": m} for m in call.user_messages]
        return AgentPrompt(
            messages=messages,
            warnings=list(assembled.warnings),
            sections=[name for name, _ in assembled.sections],
        )

    def agent_template(self, node: Node, team: Team) -> str:
        """The agent's own template, rendered with what its output model says about it (a
        declared team's templates come with the team the run pinned, and render in a bounded
        process: ``prepare`` awaits that render, else this blocks for it)."""
        key = (team.sha256, node.template)  # an extended team's software agents route further
        text = self._templates.get(key)
        if text is None:
            untrusted = self._untrusted(node, team)
            values = template_values(node, team)
            text = (
                render_untrusted_now(untrusted, values, self._bounds)
                if untrusted is not None
                else self.render(node.template, **values)
            )
            self._templates[key] = text
        return text

    async def prepare(self, node: Node, team: Team) -> None:
        """Render a declared team's agent's template, if this worker has not yet, awaiting its
        bounded process (the event loop goes on meanwhile; a fan-out's agents share one
        render); PromptRenderError when it fails."""
        key = (team.sha256, node.template)
        untrusted = self._untrusted(node, team)
        if untrusted is None or key in self._templates:
            return
        rendering = self._rendering.get(key)
        if rendering is None:
            rendering = asyncio.create_task(
                render_untrusted(untrusted, template_values(node, team), self._bounds)
            )
            self._rendering[key] = rendering
            rendering.add_done_callback(lambda task: self._rendered(key, task))
        text = await asyncio.shield(rendering)  # a cancelled step leaves it to the others
        self._templates[key] = text

    def _rendered(self, key: tuple[str, str], task: asyncio.Task[str]) -> None:
        """A render ended: it runs no more, and its failure counts as seen (every step that
        awaited it has it)."""
        self._rendering.pop(key, None)
        if not task.cancelled():
            task.exception()

    def _untrusted(self, node: Node, team: Team) -> UntrustedTemplate | None:
        """A pinned team's template (None: a template the package ships, the software team's
        included, which renders here)."""
        source = team.templates.get(node.template)
        if source is None or PACKAGE_TEMPLATES.get(node.template) == source:
            return None
        return UntrustedTemplate(
            team=team.name,
            agent=str(node.agent_type),
            name=node.template,
            source=source,
            prompts_dir=self._prompts_dir,
        )

    def render(self, template: str, **values: object) -> str:
        try:
            return self._env.get_template(template).render(**values)
        except TemplateError as err:
            raise PromptRenderError(
                f"prompt template {template!r} failed to render: {err}. "
                f"Templates live in {self._prompts_dir}."
            ) from None


def request_json(value: object) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, byte for byte, written by pydantic's
    Rust encoder when ``value`` holds only what both write alike (strings, booleans, None, lists,
    string-keyed objects, ints within 64 bits, floats both write without an exponent): about 7x
    faster on an agent's request. Anything else (``1e-05`` in Python is ``1e-5`` in Rust, a
    larger int) takes ``json.dumps``."""
    if _written_alike(value):
        return to_json(value, indent=2).decode()
    return json.dumps(value, indent=2, ensure_ascii=False)


def _written_alike(value: object) -> bool:
    """Whether both encoders write ``value`` alike: one loop over the tree, exact ``str``,
    ``dict`` and ``list`` (what a request is made of) taken without a call each; anything else
    is asked of ``_one_written_alike``. About 2x faster than a call per value on an agent's
    request."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str or item is None:
            continue
        if kind is dict:
            mapping = cast("dict[object, object]", item)
            if not all(isinstance(key, str) for key in mapping):
                return False
            pending.extend(mapping.values())
        elif kind is list:
            pending.extend(cast("list[object]", item))
        elif not _one_written_alike(item):
            return False
    return True


def _one_written_alike(value: object) -> bool:
    if value is None or isinstance(value, str | bool):
        return True
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    if isinstance(value, float):
        return value == 0 or 1e-4 <= abs(value) < 1e15  # positional in both, shortest digits
    if isinstance(value, list):
        return all(_one_written_alike(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _one_written_alike(v) for k, v in value.items())
    return False


def _files_sha256(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def template_values(node: Node, team: Team) -> dict[str, Any]:
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
