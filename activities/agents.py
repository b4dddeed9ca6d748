"""The agent activity: render the agent's prompt, ask the LLM, validate, stamp ids."""

from __future__ import annotations

from temporalio import activity

from agent_interrupts.activities import metrics
from agent_interrupts.activities.heartbeat import heartbeating
from agent_interrupts.activities.kept_calls import KeptCalls, activity_key, fingerprint
from agent_interrupts.activities.llm import (
    LlmSettings,
    StructuredLlm,
    ToolCallsRequested,
    as_activity_error,
)
from agent_interrupts.activities.output_schema import shared_decoder_schema
from agent_interrupts.activities.prompting import AgentPrompt, PromptRenderer
from agent_interrupts.activities.redaction import redact
from agent_interrupts.activities.result_decorators import decorate
from agent_interrupts.activities.route_filter import (
    closed_question,
    closed_routes,
    round_targets,
)
from agent_interrupts.activities.teams import TeamFinder
from agent_interrupts.activities.tools.loop import Toolbox
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.activities.trimming import (
    estimated_tokens,
    prompt_chars,
    without_oldest_optional,
)
from agent_interrupts.models.agent_call import AgentCall, AgentReply
from agent_interrupts.models.errors import (
    AgentWorkflowError,
    InvalidLlmReply,
    LlmContextExceeded,
)
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.limits import MAX_FAN_OUT, clip
from agent_interrupts.models.policies import AGENT_HEARTBEAT_INTERVAL
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team import Node, Team
from agent_interrupts.models.team_build import team_of


class AgentActivities:
    """Activities that run agents. Construct once per worker with its LLM and prompts."""

    def __init__(
        self,
        llm: StructuredLlm,
        prompts: PromptRenderer,
        tools: Toolbox | None = None,
        teams: TeamFinder | None = None,
    ) -> None:
        self._llm = llm
        self._prompts = prompts
        self._tools = tools or Toolbox(ToolSettings())
        self._teams = teams
        """Finds a declared team's run's team (None: only teams this process has seen)."""
        self._calls: KeptCalls[AgentReply] = KeptCalls()
        """This worker's agent calls by activity: an attempt the server lost in an outage
        leaves its call running, and the next attempt joins it or takes its reply."""

    @activity.defn
    async def run_agent(self, call: AgentCall) -> AgentReply:
        """One model call of an agent step (with validation retries); with a workspace, the
        reply may ask for tool calls instead, and the workflow runs the next round. A later
        attempt of an attempt the server lost (a server outage) joins its call on this worker,
        or takes its reply: the model is asked once (``activities/kept_calls.py``)."""
        async with heartbeating(AGENT_HEARTBEAT_INTERVAL):
            return await self._calls.run(
                activity_key(), fingerprint(call), lambda: self._reply(call)
            )

    async def _reply(self, call: AgentCall) -> AgentReply:
        agent = str(call.agent_type)
        try:
            reply = await self._run(call)
        except (InvalidLlmReply, LlmContextExceeded) as err:
            if not call.ask_when_stuck:
                metrics.agent_step(agent, "failed")
                raise as_activity_error(err) from None
            activity.logger.warning("%s is stuck, a person is asked: %s", call.agent_type, err)
            metrics.agent_step(agent, "stuck")
            return AgentReply(output={}, route=None, stuck=redact(str(err)))
        except Exception as err:
            metrics.agent_step(agent, "failed")
            failure = as_activity_error(err)
            unexpected = not isinstance(err, AgentWorkflowError)  # a bug: keep its traceback
            activity.logger.warning(
                "%s failed: %s", call.agent_type, failure.message, exc_info=unexpected
            )
            raise failure from None
        metrics.agent_step(agent, _outcome(reply))
        return reply

    async def _run(self, call: AgentCall) -> AgentReply:
        team = await self._teams.team(call.team) if self._teams else team_of(call.team)
        node = team.node(call.agent_type)
        await self._prompts.prepare(node, team)  # a declared team's template: bounded, awaited
        prompt = self._prompts.agent_messages(node, call, team)
        limit = self._llm.settings.context_tokens
        output = self._llm.settings.max_tokens_for(str(call.agent_type), call.output_tokens_factor)[
            0
        ]
        dropped: list[str] = []
        while limit and estimated_tokens(prompt.messages) + output > limit:
            trimmed = self._trimmed(node, call, prompt, team)
            if trimmed is None:
                break  # what is left is never dropped; the endpoint says whether it fits
            call, prompt, what = trimmed
            dropped.append(what)
        warnings = [redact(w) for w in prompt.warnings]
        if dropped:
            warnings.append(
                f"the prompt was trimmed to fit LLM_CONTEXT_TOKENS ({limit}) with "
                f"{output} output tokens: dropped {', '.join(dropped)}"
            )
        for warning in warnings:
            activity.logger.warning("%s %s: %s", call.node_id, call.agent_type, warning)
        routes = _OpenRoutes(node, call, self._llm.settings, team)
        tools = await self._tools.round(call, team)
        while True:
            try:
                reply = await self._llm.complete(
                    agent=str(call.agent_type),
                    messages=[*prompt.messages, *routes.messages, *tools.messages],
                    output_model=node.output_model,
                    schema=routes.schema,
                    check=routes.check,
                    repair=answerable_question,
                    template_version=self._prompts.template_version,
                    tools=tools.offer,
                    output_tokens_factor=call.output_tokens_factor,
                    model=call.model,
                )
                break
            except ToolCallsRequested as asked:
                return AgentReply(
                    output={},
                    route=None,
                    warnings=warnings,
                    tool_requests=tools.requested(asked),
                    tool_trace=tools.trace,
                )
            except LlmContextExceeded:  # the endpoint knows the context; we only estimate
                trimmed = self._trimmed(node, call, prompt, team)
                if trimmed is None:
                    raise  # what is left is never dropped: a person is asked
                call, prompt, what = trimmed
                warning = f"the endpoint said the prompt does not fit the model: dropped {what}"
                activity.logger.warning("%s %s: %s", call.node_id, call.agent_type, warning)
                warnings.append(warning)
        if reply.repaired:
            warnings.append(
                f"the model's question stayed malformed ({clip(reply.repaired, 600)}); it is "
                "asked as repaired: unusable ids renumbered, repeated options kept once, a "
                "recommendation of no real option dropped"
            )
        output = reply.value
        decorate(output, call)
        tools.check(output)
        route = output.chosen_route()[0]
        activity.logger.info("%s %s -> %s", call.node_id, call.agent_type, route or "result")
        return AgentReply(
            output=output.to_wire(),
            route=route,
            call=reply.call,
            warnings=warnings,
            tool_trace=tools.trace,
            tool_results=tools.result_shas,
        )

    def _trimmed(
        self, node: Node, call: AgentCall, prompt: AgentPrompt, team: Team
    ) -> tuple[AgentCall, AgentPrompt, str] | None:
        """``call`` and its prompt with the oldest optional context dropped until the prompt is
        shorter (pieces no prompt section shows go along), and what was dropped; None when
        nothing that is left can be dropped."""
        size = prompt_chars(prompt.messages)
        dropped: list[str] = []
        while (smaller := without_oldest_optional(call)) is not None:
            call, what = smaller
            dropped.append(what)
            shorter = self._prompts.agent_messages(node, call, team)
            if prompt_chars(shorter.messages) < size:
                return call, shorter, ", ".join(dropped)
        return None


class _OpenRoutes:
    """What one agent call may route to, with LLM_MAX_PHASE_ROUNDS and LLM_MAX_QUESTIONS: the
    schema of its open routes (None: all are open), a message naming the closed ones, and a check
    that refuses them from an endpoint that does not enforce the schema."""

    def __init__(self, node: Node, call: AgentCall, settings: LlmSettings, team: Team) -> None:
        rounds = settings.max_phase_rounds
        self.closed = {
            **closed_routes(node.output_model, call.agent_runs, rounds, round_targets(team)),
            **closed_question(call.interrupts_here, settings.max_questions, call.supervised),
        }
        self.schema = None
        self.messages: list[dict[str, str]] = []
        if self.closed:
            routes = tuple(r for r in node.output_model.route_aliases() if r not in self.closed)
            self.schema = shared_decoder_schema(node.output_model, settings.profile, routes)
            why = "; ".join(f"{r}: {reason}" for r, reason in self.closed.items())
            ask = (
                "" if "interruptRequest" in self.closed else ", or ask a person in interruptRequest"
            )
            self.messages.append(
                {
                    "role": "user",
                    "content": f"These routes are closed now ({why}). Take another route: move "
                    f"the run on{ask}.",
                }
            )

    def check(self, output: Routing) -> None:
        route = output.chosen_route()[0]
        if route in self.closed:
            raise ValueError(f"{route} is closed: {self.closed[route]}; take another route")
        well_formed_reply(output)


def _outcome(reply: AgentReply) -> str:
    """How a model call ended, for the ``agents_agent_steps`` counter."""
    if reply.tool_requests:
        return "tools"
    return "asked" if reply.route == "interruptRequest" else "routed"


def answerable_question(output: Routing) -> Routing | None:
    """On the last attempt, the model's malformed question made answerable rather than lost
    (``InterruptRequestBase.answerable``); None when what was refused is not a question."""
    for name in output.route_fields:
        chosen = getattr(output, name)
        if isinstance(chosen, InterruptRequestBase):
            return output.model_copy(update={name: chosen.answerable()})
    return None


def well_formed_reply(output: Routing) -> None:
    """A question a person cannot answer as asked goes back to the LLM with its problems
    (the validation-retry path of routes): FR-088..091, SC-025, SC-027. So does a fan-out over
    MAX_FAN_OUT agents: the schema says ``maxItems``, not every endpoint enforces it."""
    field, _, chosen = output.chosen_route()
    problems = chosen.problems() if isinstance(chosen, InterruptRequestBase) else []
    if problems:
        raise ValueError(
            "the question in interruptRequest is not well formed: " + "; ".join(problems)
        )
    fan_out = getattr(chosen, "requests", None)
    if isinstance(fan_out, list) and len(fan_out) > MAX_FAN_OUT:
        raise ValueError(
            f"{field}.requests has {len(fan_out)} agent requests; a fan-out runs at most "
            f"{MAX_FAN_OUT} agents (MAX_FAN_OUT): group the work into at most {MAX_FAN_OUT}"
        )
