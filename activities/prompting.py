"""Prompt assembly: a sandboxed jinja2 environment over ``prompts/``.

Text that comes from people or LLMs (goal, requests, answers) is passed as data and never
compiled as a template, so ``{{ ... }}`` inside it stays literal.
"""

from __future__ import annotations

import json
from pathlib import Path

from jinja2 import StrictUndefined, TemplateError
from jinja2.loaders import FileSystemLoader
from jinja2.sandbox import SandboxedEnvironment

from models.agent_call import AgentCall
from models.errors import PromptRenderError
from models.routing import Routing
from workflows.graph import Node

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"


class PromptRenderer:
    """Renders the system prompt of an agent and the user message carrying its request."""

    def __init__(self, prompts_dir: Path = PROMPTS_DIR) -> None:
        self._env = SandboxedEnvironment(
            loader=FileSystemLoader(prompts_dir),
            undefined=StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
        )

    def agent_messages(self, node: Node, call: AgentCall) -> list[dict[str, str]]:
        """System prompt from the agent's template, then the request as a user message."""
        routes = (
            list(node.output_model.route_aliases())
            if issubclass(node.output_model, Routing)
            else []
        )
        system = self.render(
            node.template,
            agent_type=node.agent_type.value,
            output_name=node.output_model.__name__,
            routes=routes,
        )
        user = self.render(
            "workflow/_request.jinja",
            goal=call.goal,
            node_id=call.node_id,
            request_json=json.dumps(call.request, indent=2, ensure_ascii=False),
            context=[c.to_wire() for c in call.context],
            interrupt_resolution=call.interrupt_resolution,
        )
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        messages += [{"role": "user", "content": m} for m in call.user_messages]
        return messages

    def render(self, template: str, **values: object) -> str:
        try:
            return self._env.get_template(template).render(**values)
        except TemplateError as err:
            raise PromptRenderError(
                f"prompt template {template!r} failed to render: {err}. "
                f"Templates live in {PROMPTS_DIR}."
            ) from None
