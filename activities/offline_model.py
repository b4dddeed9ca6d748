"""The offline model: a deterministic responder plugged into the openai SDK as its transport.

It answers any ``json_schema`` response format with plausible content derived from the goal and
walks the graph forward (the first route of each Routing). A scenario makes chosen agents raise
an interrupt or answer slowly, or makes the run loop: with ``loop=N`` an agent that may end the
run (the software team's ORCHESTRATOR_COLLECTOR) advances again (its first route that is not
``finalResult``, so the graph runs once more) until the model has answered about N agent calls for
that workflow id (counted per worker, across continue-as-new; a retried call counts twice), then
stops. See ``OfflineScenario.parse``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections import Counter, OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from temporalio import activity

from agent_interrupts.activities import offline_tools
from agent_interrupts.activities.offline_questions import declared_question, declares_its_question
from agent_interrupts.activities.output_schema import REPLY_KEY, is_wrapped, variants
from agent_interrupts.activities.routing_info import route_options
from agent_interrupts.models.agent_call import SUPERVISOR_MESSAGE_PREFIX
from agent_interrupts.models.agent_types import Terminal, agent_name
from agent_interrupts.models.graph import NODES_BY_OUTPUT
from agent_interrupts.models.ids import agent_key, dispatched_agent_key
from agent_interrupts.models.requests import CONTEXT_FOUND
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team import Node
from agent_interrupts.models.team_build import TEAMS, TeamRegistry
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import InterruptRouting

RESOLVED_MARKER = "## Interrupt resolution"
"""Prompt heading that tells the offline model this agent's question was already answered."""

_GOAL = re.compile(r"^Goal: (?P<goal>.+)$", re.MULTILINE)
_NODE = re.compile(r"^Node: (?P<node>\S+)$", re.MULTILINE)
_SUPPORTED_PATH = "/chat/completions"
ROUTED_KEPT = 4096
"""Runs and agents the offline model remembers having taken a scenario's route for."""


class UnknownScenarioAgent(ValueError):
    """A scenario names an agent of no team it is read with (a team the worker does not
    serve)."""


@dataclass(frozen=True)
class OfflineScenario:
    """Which agents interrupt, ask the context manager or answer slowly (seconds), and how long
    a run loops."""

    interrupt_at: frozenset[str] = frozenset()
    agent_review_at: frozenset[str] = frozenset()
    delays: dict[str, float] = field(default_factory=dict)
    context_at: frozenset[str] = frozenset()
    """These agents ask the CONTEXT_MANAGER once before routing on."""
    loop: int | None = None
    """Agent calls per run before an agent that may end the run (the orchestrator collector) may
    stop; None: it stops at once."""
    interrupt_agents: frozenset[str] = frozenset()
    """Dispatched agents that ask, by key within their fan-out (``ticket-agent-2``)."""
    fan_out: int = 2
    """Agents per fan-out (entries of ``requests`` a dispatch node is given)."""
    conflict: bool = False
    """Ticket agents without a recipe all write the same file, so the merge conflicts."""
    deaf: frozenset[str] = frozenset()
    """These agents ignore a supervisor's message (a model that does not obey it)."""
    key_delays: dict[str, float] = field(default_factory=dict)
    """Seconds by dispatched agent key (``ticket-agent-2``), before ``delays`` by agent type."""
    routes: dict[str, str] = field(default_factory=dict)
    """The route (JSON name) an agent takes instead of its first, when its schema offers it:
    the first time it may in a run (a forced loop ends), every time for ``routes_always``."""
    routes_always: frozenset[str] = frozenset()
    """Agents whose ``routes`` entry holds on every call (``route=AGENT:routeName*``)."""

    @classmethod
    def parse(cls, text: str | None, agents: Collection[str] = ()) -> OfflineScenario:
        """Parse ``interrupt=A,B#2;agent_review=C;delay=D:2.5,B#2:30;context=E;loop=1000;fanout=3;
        conflict;deaf=F``: the team's agent names (``CODER#2`` is the second agent CODER of each
        fan-out only), ``loop`` a number of agent calls, ``fanout`` the agents per fan-out,
        ``conflict`` ticket agents whose edits conflict, ``deaf`` agents that ignore a
        supervisor's message, ``route=G:reviewRequest`` the route agent G takes instead of its
        first, once per run (``route=G:reviewRequest*``: every time). Agent names are the
        software team's, or ``agents`` (a declared team's)."""
        if not text or not text.strip():
            return cls()
        known = frozenset({*AgentType, *agents})

        def _agent(name: str) -> str:
            return _known_agent(name, known)

        interrupt: set[str] = set()
        review: set[str] = set()
        context: set[str] = set()
        delays: dict[str, float] = {}
        key_delays: dict[str, float] = {}
        loop: int | None = None
        keys: set[str] = set()
        fan_out = cls.fan_out
        conflict = False
        deaf: set[str] = set()
        routes: dict[str, str] = {}
        always: set[str] = set()
        for part in filter(None, (p.strip() for p in text.split(";"))):
            key, _, value = part.partition("=")
            items = [v.strip() for v in value.split(",") if v.strip()]
            if key.strip() == "interrupt":
                for item in items:
                    name, _, index = item.partition("#")
                    if index:
                        keys.add(agent_key(_agent(name), _count(index)))
                    else:
                        interrupt.add(_agent(name))
            elif key.strip() == "agent_review":
                review.update(_agent(v) for v in items)
            elif key.strip() == "context":
                context.update(_agent(v) for v in items)
            elif key.strip() == "delay":
                for item in items:
                    name, _, seconds = item.partition(":")
                    name, _, index = name.partition("#")
                    if index:
                        key_delays[agent_key(_agent(name), _count(index))] = float(seconds or 1)
                    else:
                        delays[_agent(name)] = float(seconds or 1)
            elif key.strip() == "loop" and value.strip().isdigit() and int(value) > 0:
                loop = int(value)
            elif key.strip() == "fanout":
                fan_out = _count(value)
            elif key.strip() == "conflict" and not value.strip():
                conflict = True
            elif key.strip() == "deaf":
                deaf.update(_agent(v) for v in items)
            elif key.strip() == "route":
                for item in items:
                    name, _, route = item.partition(":")
                    route = route.strip()
                    if not route.removesuffix("*"):
                        raise ValueError(
                            f"route={item!r} in OFFLINE_SCENARIO: use AGENT:routeName (once per "
                            "run) or AGENT:routeName* (every time)"
                        )
                    routes[_agent(name)] = route.removesuffix("*")
                    if route.endswith("*"):
                        always.add(_agent(name))
            else:
                raise ValueError(
                    f"unknown OFFLINE_SCENARIO part {part!r}; use 'interrupt=AGENT,AGENT#N;"
                    "agent_review=AGENT;delay=AGENT:SECONDS,AGENT#N:SECONDS;context=AGENT;"
                    "loop=CALLS;fanout=N;"
                    "conflict;deaf=AGENT;route=AGENT:routeName,AGENT:routeName*'"
                )
        return cls(
            frozenset(interrupt),
            frozenset(review),
            delays,
            frozenset(context),
            loop,
            frozenset(keys),
            fan_out,
            conflict,
            frozenset(deaf),
            key_delays,
            routes,
            frozenset(always),
        )


def _count(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise ValueError(f"expected a whole number of at least 1 in OFFLINE_SCENARIO, not {text!r}")
    return int(text)


def _known_agent(name: str, known: Collection[str]) -> str:
    """``name`` as one of the ``known`` agents (a ValueError naming them otherwise)."""
    upper = name.strip().upper()
    if upper not in known:
        valid = ", ".join(sorted(known))
        raise UnknownScenarioAgent(
            f"unknown agent type {name!r} in OFFLINE_SCENARIO; use one of {valid}"
        )
    return agent_name(upper)


def _node(name: str, teams: Sequence[TeamRegistry]) -> Node | None:
    """The node whose routing a response format names: the software team's or a declared
    team's built in one of ``teams``."""
    node = NODES_BY_OUTPUT.get(name)
    if node is None and (declared := _built_output(name, teams)) is not None:
        node = declared[0]
    return node


def _built_output(
    name: str, teams: Sequence[TeamRegistry]
) -> tuple[Node | None, type[Routing]] | None:
    """A declared team's routing by class name, from the newest registry that built it."""
    for registry in reversed(teams):
        if (found := registry.output(name)) is not None:
            return found
    return None


class OfflineModel(httpx2.AsyncBaseTransport):
    """Answers Chat Completions requests locally; with ``keep_requests`` (for tests and benches)
    it keeps every request body it received in ``received``, else none: a worker's stays bounded.
    ``requests`` counts every request answered, kept or not; a bench that needs the bodies of a
    warm-up only sets ``keep_requests`` to False after it, so that the bodies of thousands of
    measured calls do not lengthen the garbage collector's passes over its heap."""

    def __init__(
        self, scenario: OfflineScenario | None = None, *, keep_requests: bool = True
    ) -> None:
        self.scenario = scenario or OfflineScenario()
        self.received: list[dict[str, Any]] = []
        self.keep_requests = keep_requests
        self.requests = 0
        self._calls: Counter[str] = Counter()
        """Agent calls answered per workflow id, counted only for the ``loop`` scenario."""
        self._routed: OrderedDict[tuple[str, str], str] = OrderedDict()
        """(workflow id, agent) -> the agent call (run id and activity id) that took the
        scenario's route for it: another call takes its first route (the newest
        ``ROUTED_KEPT``)."""
        self._teams: list[TeamRegistry] = [TEAMS]
        """Where declared teams' routings are found by name: each worker's registry it answers
        for (``serve``), and the process's."""

    def serve(self, teams: TeamRegistry) -> None:
        """Answer the declared teams a worker's ``teams`` built (its agent calls' routings)."""
        if all(t is not teams for t in self._teams):
            self._teams.append(teams)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method != "POST" or not request.url.path.endswith(_SUPPORTED_PATH):
            return httpx2.Response(
                404, json={"error": {"message": f"offline model serves only {_SUPPORTED_PATH}"}}
            )
        body = json.loads(await request.aread())
        self.requests += 1
        if self.keep_requests:
            self.received.append(body)
        fmt = body.get("response_format") or {}
        name = (fmt.get("json_schema") or {}).get("name", "")
        node = _node(name, self._teams)
        if node is not None and self.scenario.loop is not None:
            self._calls[_workflow_id()] += 1
        if node is not None:
            key = _agent_key(body.get("messages") or [])
            delay = self.scenario.key_delays.get(key, self.scenario.delays.get(node.agent_type))
            if delay:
                await asyncio.sleep(delay)
        return httpx2.Response(200, json=self.completion(body))

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        """The response to a request: the next tool calls while tools are offered and the
        offline plan has some (``activities/offline_tools.py``), else the structured answer."""
        spec = (body.get("response_format") or {}).get("json_schema") or {}
        name = spec.get("name", "")
        messages = body.get("messages") or []
        offered = {str((t.get("function") or {}).get("name")) for t in body.get("tools") or []}
        node = _node(name, self._teams)
        if offered and body.get("tool_choice") != "none" and node is not None:
            agent = str(node.agent_type)
            calls = offline_tools.next_calls(
                _goal(messages), agent, offered, messages, self.scenario.conflict
            )
            if calls:
                return chat_completion(
                    body.get("model", ""), None, offline_tools.tool_calls(calls, messages)
                )
        schema = spec.get("schema") or {}
        answer = self.answer(name, schema, messages)
        if is_wrapped(schema):
            answer = json.dumps({REPLY_KEY: json.loads(answer)})
        return chat_completion(body.get("model", ""), answer)

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        """The routing (or other value) one structured-output request asks for, as JSON; a
        reply to a schema of several route variants carries it under REPLY_KEY."""
        goal = _goal(messages)
        refs = offline_tools.diff_references(messages) or offline_tools.references(messages)
        writer = _Writer(goal, schema, self.scenario.fan_out, refs)
        node = _node(name, self._teams)
        model: type[Routing] | None = None
        if name == InterruptRouting.__name__:
            model = InterruptRouting
        elif node is not None:
            model = node.output_model
        elif (declared := _built_output(name, self._teams)) is not None:
            model = declared[1]  # a declared team's handler routing
        if model is None:
            return json.dumps(writer.value(schema, "result"))
        wants = node is not None and self._wants_interrupt(node.agent_type, messages)
        context = (
            node is not None
            and node.agent_type in self.scenario.context_at
            and not any(CONTEXT_FOUND in str(m.get("content", "")) for m in messages)
        )
        routes = model.route_aliases()
        offered = {r: v for v in variants(schema) for r in v.get("properties", {}) if r in routes}
        route = self.pick_route(model, list(offered), wants, context, stop=not self._loops(node))
        chosen = self.scenario.routes.get(node.agent_type, "") if node is not None else ""
        if chosen in offered and not wants and not context and node is not None:
            route = chosen if self._routes_now(node.agent_type) else route
        review = node is not None and node.agent_type in self.scenario.agent_review_at
        if node is not None and declares_its_question(model):
            writer.asker = str(node.agent_type)  # its question's fields are its team's words
        return json.dumps(writer.routing(offered[route], model, route, agent_review=review))

    def pick_route(
        self, model: type[Routing], present: list[str], interrupt: bool, context: bool, stop: bool
    ) -> str:
        """The route taken among those the schema offers (``present``): forward, unless the
        scenario asks a question, consults the context manager or loops."""
        return _pick_route(model, present, interrupt, context, stop=stop)

    def _routes_now(self, agent: str) -> bool:
        """Whether ``agent`` takes the scenario's route in this call: the first call of a run
        that may (and its retries), or every call with ``routes_always``."""
        if agent in self.scenario.routes_always:
            return True
        key, call = (_workflow_id(), agent), _agent_call()
        taken = self._routed.setdefault(key, call)
        self._routed.move_to_end(key)
        while len(self._routed) > ROUTED_KEPT:
            self._routed.popitem(last=False)
        return taken == call

    def _loops(self, node: Node | None) -> bool:
        """Whether an agent that may end the run goes round again instead (the ``loop``
        scenario): it takes its first route that is not END (the software team's only such
        agent is the orchestrator collector; an agent without a route to END is not changed)."""
        loop = self.scenario.loop
        return loop is not None and node is not None and self._calls[_workflow_id()] < loop

    def _wants_interrupt(self, agent: str, messages: list[dict[str, Any]]) -> bool:
        """A supervisor's message always wins; an answered question is not asked again."""
        contents = [str(m.get("content", "")) for m in messages]
        users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
        supervised = any(u.startswith(SUPERVISOR_MESSAGE_PREFIX) for u in users)
        if supervised and agent not in self.scenario.deaf:
            return True
        if any(RESOLVED_MARKER in c for c in contents):
            return False
        scenario = self.scenario
        return (
            agent in scenario.interrupt_at | scenario.agent_review_at
            or _agent_key(messages) in scenario.interrupt_agents
        )


def _agent_key(messages: list[dict[str, Any]]) -> str:
    """The dispatched agent's key within its fan-out (``ticket-agent-2``), or ""."""
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    node = _NODE.search("\n".join(users))
    return dispatched_agent_key(node["node"]) if node else ""


def _workflow_id() -> str:
    """The workflow of the activity this call is made from ("" outside an activity)."""
    return (activity.info().workflow_id or "") if activity.in_activity() else ""


def _agent_call() -> str:
    """The agent call this model call is made for (its run and activity ids; the same across
    the activity's retries), or "" outside an activity."""
    if not activity.in_activity():
        return ""
    info = activity.info()
    return f"{info.workflow_run_id}/{info.activity_id}"


def _goal(messages: list[dict[str, Any]]) -> str:
    asked = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
    match = _GOAL.search(asked)
    return match["goal"].strip() if match else "the requested change"


def _pick_route(
    model: type[Routing],
    present: list[str],
    interrupt: bool,
    context: bool = False,
    *,
    stop: bool = True,
) -> str:
    """The route the offline model takes among those the schema offers (``present``)."""
    routes = model.route_aliases()
    if interrupt and "interruptRequest" in present:
        return "interruptRequest"
    if context and "contextManagerRequest" in present:
        return "contextManagerRequest"
    forward = [
        a
        for a in present
        if a not in ("interruptRequest", "contextManagerRequest")
        and (stop or routes[a] is not Terminal.END)
    ]
    return (forward or present)[0]


class _Writer:
    """Fills a JSON schema with text derived from the goal."""

    def __init__(
        self,
        goal: str,
        root: dict[str, Any],
        fan_out: int = 2,
        refs: list[offline_tools.Reference] | None = None,
    ) -> None:
        self.goal = goal
        self.root = root
        self.fan_out = fan_out
        self.refs = refs or []
        """Line ranges the tools showed: file references and paths are taken from these."""
        self.next_ref = 0
        self.counter = 0
        self.tickets: list[str] = []
        self.ticket_refs = 0
        words = re.findall(r"[a-z]+", goal.lower())
        self.component = words[-1] if words else "service"
        self.asker: str | None = None
        """A declared team's agent: its question is built from its declared fields."""

    def routing(
        self, schema: dict[str, Any], model: type[Routing], route: str, *, agent_review: bool
    ) -> dict[str, Any]:
        routes = model.route_aliases()
        out: dict[str, Any] = {}
        for key, prop in schema.get("properties", {}).items():
            if key in routes and key != route:
                out[key] = None
            elif key == "interruptRequest":
                question = _non_null(self._deref(prop))
                out[key] = (
                    self.declared_interrupt(question, model, agent_review, self.asker)
                    if self.asker is not None
                    else self.interrupt(question, agent_review)
                )
            else:
                out[key] = self.value(_non_null(self._deref(prop)), key)
        return out

    def interrupt(self, schema: dict[str, Any], agent_review: bool) -> dict[str, Any]:
        value = self.value(schema, "interruptRequest")
        value.update(
            type="AGENT_REVIEW" if agent_review else "HUMAN_REVIEW",
            reason=f"Two reasonable approaches exist for '{self.goal}' and the choice changes "
            "the scope of the work.",
            contextForDecision=f"The goal '{self.goal}' does not say how far the change reaches.",
            choices=[
                {
                    "choiceId": "approach",
                    "question": f"How should '{self.goal}' be approached?",
                    "context": "Both options satisfy the goal; they differ in scope and risk.",
                    "options": [
                        {"key": "A", "description": "Minimal change in the existing modules"},
                        {"key": "B", "description": "Introduce a dedicated component"},
                        {"key": "CUSTOM", "description": "Or provide your own approach"},
                    ],
                    "recommended": "A",
                }
            ],
            confirmationItems=[
                {
                    "confirmationId": "add-tests",
                    "statement": "Add regression tests for the changed behaviour",
                    "context": "Tests protect the change from later edits.",
                    "defaultValue": True,
                    "impactIfNo": "The change ships without new tests.",
                }
            ],
        )
        return value

    def declared_interrupt(
        self, schema: dict[str, Any], model: type[Routing], agent_review: bool, agent: str
    ) -> dict[str, Any]:
        """A declared team's agent's question, in its team's words: its own fields filled, the
        choices and confirmations built from them (``offline_questions``)."""
        value = self.value(schema, "interruptRequest")
        forward = [
            o.description for o in route_options(model) if o.target is not Terminal.INTERRUPT
        ]
        value.update(
            declared_question(agent, self.goal, schema, value, forward, self._deref),
            type="AGENT_REVIEW" if agent_review else "HUMAN_REVIEW",
        )
        return value

    def _deref(self, schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref")
        if not ref:
            return schema
        node: Any = self.root
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return self._deref(node)

    def value(self, schema: dict[str, Any], key: str) -> Any:
        schema = self._deref(schema)
        if "anyOf" in schema:
            options = [self._deref(s) for s in schema["anyOf"]]
            if any(o.get("type") == "null" for o in options):
                return None
            return self.value(options[0], key)
        if "enum" in schema:
            return schema["enum"][0]
        if "const" in schema:
            return schema["const"]
        kind = schema.get("type")
        if kind == "object":
            props = schema.get("properties", {})
            if "ticketId" in props:
                planned = "dependencies" in props
                self.ticket_refs += not planned
                index = len(self.tickets) + 1 if planned else self.ticket_refs
                self.tickets.append(f"T-{index:03d}")
            value = {k: self.value(p, k) for k, p in props.items()}
            if self.refs and "path" in value and "startLine" in value:
                ref = self.refs[self.next_ref % len(self.refs)]
                self.next_ref += 1
                value.update(path=ref.path, startLine=ref.start_line, endLine=ref.end_line)
                value.update({"note": ref.note} if "note" in value else {})
            return value
        if kind == "array":
            if key == "dependencies":
                return self.tickets[-2:-1]  # each planned ticket needs the one before it
            if self.refs and key in _PATH_LISTS:
                return list(dict.fromkeys(r.path for r in self.refs))[:2]
            count = max(self.fan_out if key == "requests" else 2, schema.get("minItems", 0))
            return [self.value(schema.get("items", {}), _singular(key)) for _ in range(count)]
        if kind == "boolean":
            return True
        if kind in ("integer", "number"):
            return self.number(key, integer=kind == "integer")
        return self.text(key)

    def number(self, key: str, *, integer: bool) -> float | int:
        self.counter += 1
        n = self.counter
        if key == "startLine":
            return 10 * n
        if key == "endLine":
            return 10 * n + 24
        if key == "relevance":
            return (0.9, 0.75, 0.6)[n % 3]
        return n % 5 + 1 if integer else 0.8

    def text(self, key: str) -> str:
        self.counter += 1
        n = self.counter
        aspect = _ASPECTS[n % len(_ASPECTS)]
        part = _PARTS[n % len(_PARTS)]
        component = self.component
        written = {
            "ticketId": self.tickets[-1] if self.tickets else f"T-{n:03d}",
            "path": f"src/{component}/{part}.py",
            "subdomain": aspect,
            "area": aspect,
            "phase": "DISCOVERY",
            "proposedNextPhase": "PLANNING",
            "goal": self.goal,
            "note": f"{part} of the {component}: where {aspect} is handled",
            "tag": f"{component}-{part}",
            "query": f"Where does the {component} handle {aspect}?",
            "generatedQuery": f"Which {component} modules touch {aspect}?",
            "title": f"{_VERBS[n % len(_VERBS)]} {aspect} for '{self.goal}'",
            "task": f"Change src/{component}/{part}.py for {aspect}",
            "acceptanceCriterion": f"A test shows '{self.goal}' holds for {aspect}",
            "node": f"{component}.{part}",
            "source": f"{component}.{part}",
            "target": f"{component}.{_PARTS[(n + 1) % len(_PARTS)]}",
            "relation": "calls",
            "label": "calls",
        }.get(key)
        if written is not None:
            return written
        words = re.sub(r"(?<!^)(?=[A-Z])", " ", key).lower()
        return f"{words.capitalize()} for '{self.goal}' ({aspect})"


_PATH_LISTS = frozenset({"filePaths", "filesModified", "files"})
"""Arrays of workspace paths: filled with files the tools showed."""
_ASPECTS = (
    "request handling",
    "configuration and limits",
    "state and storage",
    "errors and observability",
)
_PARTS = ("middleware", "config", "store", "handlers", "metrics")
_VERBS = ("Add", "Wire", "Test", "Document")


def _non_null(schema: dict[str, Any]) -> dict[str, Any]:
    options = schema.get("anyOf")
    if not options:
        return schema
    rest = [o for o in options if o.get("type") != "null"]
    return rest[0] if rest else schema


def _singular(key: str) -> str:
    return key[:-1] if key.endswith("s") else key


def chat_completion(
    model: str, content: str | None, tool_calls: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A Chat Completions response body carrying ``content`` or ``tool_calls`` (deterministic
    id)."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    digest = hashlib.sha256(json.dumps(message).encode()).hexdigest()[:16]
    return {
        "id": "chatcmpl-offline-" + digest,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
