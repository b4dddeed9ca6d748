"""The inbox's pages: the waiting questions of every run and the newest answers, refreshed by
polling, and the form that answers through the validated update (as ``agents resolve`` does).

Everything a model wrote reaches the page through jinja2 with autoescape on; the page's only
script is the static ``inbox.js`` (the Content-Security-Policy allows no other)."""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
import secrets
import socket
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qsl

import uvicorn
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from temporalio.client import WorkflowQueryFailedError
from temporalio.service import RPCError, RPCStatusCode

from agent_interrupts.app.config import InboxSettings
from agent_interrupts.app.connect import UNREACHABLE
from agent_interrupts.app.inbox.access import LINK_PATH, Guard
from agent_interrupts.app.inbox.codec_server import CodecServer
from agent_interrupts.app.inbox.forking import ForkPages
from agent_interrupts.app.inbox.form import (
    ACCEPT,
    CHOICE,
    CONFIRM,
    CONTINUE_AT,
    CUSTOM,
    ONLY,
    STOP,
    TEXT,
    form_problems,
    resolution_from_form,
    starting_values,
    submitted_fields,
)
from agent_interrupts.app.inbox.ignored import FILE_NAME, IgnoredQuestions
from agent_interrupts.app.inbox.links import AnswerLinks
from agent_interrupts.app.inbox.pages import PageTokens, page_address
from agent_interrupts.app.inbox.questions import QuestionReader
from agent_interrupts.app.inbox.slack import PATH as SLACK_PATH
from agent_interrupts.app.inbox.slack import SlackDoor
from agent_interrupts.app.inbox.templating import environment
from agent_interrupts.app.inbox.view import (
    KINDS,
    Filters,
    age,
    distinct_agents,
    distinct_runs,
    fan_out,
    iso,
    markdown,
    untagged,
)
from agent_interrupts.app.people import person_name
from agent_interrupts.app.run_picture import node_views, svg
from agent_interrupts.app.sdk import (
    QUESTION_QUERY_TIMEOUT,
    AgentWorkflowClient,
    Answer,
    ResolutionRejected,
    WaitingPage,
    WaitingQuestion,
    accepted,
    decisions,
)
from agent_interrupts.app.stuck import stuck_ids
from agent_interrupts.app.waiting_pages import WaitingFilter, WaitingFilterError
from agent_interrupts.models.errors import describe_validation_error
from agent_interrupts.models.interrupt_flow import InterruptStatus
from agent_interrupts.models.interrupts import Door
from agent_interrupts.models.resolution_rules import redirect_targets, unanswered_parts
from agent_interrupts.models.team_build import team_of
from agent_interrupts.models.team_spec import TeamPin
from agent_interrupts.models.ui_pages import workflow_page
from agent_interrupts.workflows.visibility import create_commands, typed_values

POLL_SECONDS = 1.0
"""How often an open page asks for the waiting questions and the newest answers (each refresh
costs a few visibility calls; questions are read once, ``app/inbox/questions.py``)."""
ANSWERS_SHOWN = 10
CARDS_PER_FETCH = 50
"""Cards one ``/cards`` request returns; the page asks again for the rest."""
WHOLE_CARDS = 20
"""Cards a whole page renders whole; the rest as their lines (agent, kind, deadline, the
question's gist), whose bodies the page fetches from ``/cards`` as soon as it has loaded:
rendering the cards' bodies (markdown, the answer forms) is most of a page's CPU."""
MAX_FORM_BYTES = 256 * 1024
"""The largest answer form read, the limit of one update payload."""
FETCH_HEADER = "x-inbox-fetch"
"""Set by ``inbox.js``: answer with the card alone, not a page."""
STATIC = Path(__file__).parent / "static"
ANY_ADDRESS = frozenset({"0.0.0.0", "::", ""})
"""Bind addresses that mean every address of this machine: no browser opens them."""

log = logging.getLogger("agents.inbox")
NO_FILTERS = Filters()


@dataclass(frozen=True)
class Outcome:
    """What became of an answer sent from the inbox: why it was refused, or what was answered
    and the workflow's acknowledgement."""

    problem: str | None = None
    answer: Answer | None = None
    message: str = ""


def create_app(
    agents: AgentWorkflowClient,
    settings: InboxSettings,
    *,
    limit: int = 100,
    ui_url: str | None = None,
    state_dir: Path | None = None,
    slack: SlackDoor | None = None,
    codec: CodecServer | None = None,
) -> Starlette:
    """The inbox as an ASGI app; ``limit`` bounds the waiting questions listed; ``ui_url`` is
    the Temporal UI the questions link to; the ignored questions are kept under ``state_dir``
    (for this process only without one); ``slack``: the Slack door at ``/slack/actions``, outside
    the token guard (Slack signs its requests instead); ``codec``: the codec server's routes, beside
    the guard (they check the token themselves and answer the Web UI's cross-origin calls)."""
    ignored = IgnoredQuestions(state_dir / FILE_NAME if state_dir else None)
    inbox = Inbox(agents, limit, ui_url, ignored)
    links = AnswerLinks(agents, settings.signing_secret, inbox.templates)
    app = Starlette(
        routes=[
            Route("/", inbox.page),
            Route("/questions", inbox.questions),
            Route("/cards", inbox.cards),
            Route("/answer", inbox.answer, methods=["POST"]),
            Route(f"{LINK_PATH}{{token}}", links.handle, methods=["GET", "POST"]),
            Route("/ignore", inbox.ignore, methods=["POST"]),
            Route("/fork", inbox.forking.form, methods=["GET"]),
            Route("/fork", inbox.forking.fork, methods=["POST"]),
            Route("/runs/{run_id:path}/graph.svg", inbox.run_graph),
            Route("/runs/{run_id:path}", inbox.forking.run),
            Route("/static/{name}", _static),
        ],
        middleware=[Middleware(Guard, settings=settings)],
    )
    doors: list[Route] = codec.routes() if codec is not None else []
    if slack is not None:
        doors.append(Route(SLACK_PATH, slack.actions, methods=["POST"]))
    if not doors:
        return app
    return Starlette(routes=[*doors, Mount("/", app=app)])


def listening(settings: InboxSettings) -> socket.socket:
    """The inbox's socket, bound; a taken port or an unknown host is one line naming the flag."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as err:
        sock.close()
        raise ValueError(
            f"cannot listen on {settings.host}:{settings.port} ({err.strerror}); choose another "
            "--port (or AGENTS_INBOX_PORT) or --host"
        ) from None
    sock.listen(socket.SOMAXCONN)  # connections wait in the backlog until the server accepts
    return sock


def inbox_link(settings: InboxSettings) -> str:
    """The address a person opens: the bound host, or this machine's name where the inbox
    listens on every address (``0.0.0.0``, ``::``), which no browser can open; with the token
    (with named tokens, a place for each person's own)."""
    host = settings.host if settings.host not in ANY_ADDRESS else socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    if settings.people:  # a token per person: each opens it with their own
        return f"http://{shown}:{settings.port}/?token=YOUR_TOKEN"
    return f"http://{shown}:{settings.port}/" + (
        f"?token={settings.token}" if settings.token else ""
    )


async def serve(app: Starlette, sock: socket.socket) -> None:
    """Serve on ``sock`` until Ctrl-C; no access log (a ``?token=`` link must not land in one)."""
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    await uvicorn.Server(config).serve(sockets=[sock])


class Inbox:
    """The handlers; answers of closed questions are kept (they never change)."""

    def __init__(
        self,
        agents: AgentWorkflowClient,
        limit: int,
        ui_url: str | None = None,
        ignored: IgnoredQuestions | None = None,
    ) -> None:
        self.agents = agents
        self.limit = limit
        self.ignored = ignored or IgnoredQuestions(None)
        self.away: str | None = None
        """Why Temporal did not answer the last refresh (logged once per outage), else None."""
        self.reader = QuestionReader(agents, QUESTION_QUERY_TIMEOUT)
        self.shown: dict[str, WaitingQuestion] = {}
        self.pages = PageTokens()
        """The waiting questions of the last refresh, by id, for ``/cards``."""
        self.csrf = secrets.token_urlsafe(32)
        self.answers: dict[str, Answer] = {}
        self.forking = ForkPages(self)
        """ "Try another answer" and the runs' pages (``app/inbox/forking.py``)."""
        self.templates = environment()
        self.templates.globals.update(
            typed_values=typed_values,
            starting_values=starting_values,
            when=_when,
            redirect_targets=_redirect_targets,
            markdown=markdown,
            fan_out=fan_out,
            untagged=untagged,
            age=lambda moment: age(moment, datetime.now(UTC)),
            iso=iso,
            kinds=KINDS,
            ui=lambda workflow_id: workflow_page(ui_url, agents.client.namespace, workflow_id),
            ignored_record=self.ignored.records.get,
            field=dict(
                choice=CHOICE,
                custom=CUSTOM,
                confirm=CONFIRM,
                text=TEXT,
                stop=STOP,
                continue_at=CONTINUE_AT,
                only=ONLY,
                accept=ACCEPT,
            ),
            csrf=self.csrf,
            poll_ms=int(POLL_SECONDS * 1000),
        )

    async def page(self, request: Request) -> Response:
        """The whole page: filters, the compact list, the answered questions. When Temporal
        cannot list the questions: the same page with a banner saying why (503), never an error."""
        filters = Filters.from_query(request.query_params)
        context = {"filters": filters, "trouble": ""}
        try:
            lists = await self._lists(filters, read_carded=False)
        except UNREACHABLE as err:
            trouble = await self._trouble(err)
            return self._html("page.html", {**_EMPTY, "filters": filters, "trouble": trouble}, 503)
        return self._html("page.html", {**context, **lists, "whole": WHOLE_CARDS})

    async def questions(self, request: Request) -> Response:
        """The lists, each waiting question as a stub (its id, whether it is read): an open page
        fetches ``/cards`` for the ones it lacks, so a refresh stays small however many wait.
        When Temporal cannot list them: one line saying why, which the page shows (503)."""
        filters = Filters.from_query(request.query_params)
        try:
            lists = await self._lists(filters)
        except UNREACHABLE as err:
            return PlainTextResponse(await self._trouble(err) + "\n", 503)
        return self._html("lists.html", {**lists, "filters": filters, "stubs": True})

    async def _trouble(self, err: BaseException) -> str:
        """Why the questions cannot be listed, and what to do: the search attributes to create,
        or the server that does not answer (the page keeps trying). The first refresh of an
        outage logs one line; later ones log nothing."""
        message = err.message if isinstance(err, RPCError) else f"{type(err).__name__}: {err}"
        try:
            missing = await self.agents.search_attributes_missing()
        except UNREACHABLE:  # the server is away: said below
            missing = []
        namespace = self.agents.client.namespace
        if missing and "search attribute" in message:
            return (
                f"the namespace {namespace} lacks the search attributes {', '.join(missing)}; "
                "create them: " + " && ".join(create_commands(namespace))
            )
        where = self._where()
        if self.away is None:
            log.warning(
                "Temporal at %s does not answer (%s); the inbox keeps trying", where, message
            )
        self.away = message
        return (
            f"Temporal at {where} did not list the questions ({message}); this page tries "
            f"again every {POLL_SECONDS:g} s"
        )

    async def cards(self, request: Request) -> Response:
        """The whole cards of the waiting questions ``?id=...`` (at most ``CARDS_PER_FETCH``), as
        the last refresh listed them; ids that no longer wait are left out."""
        ids = request.query_params.getlist("id")[:CARDS_PER_FETCH]
        waiting = [self.shown[i] for i in ids if i in self.shown]
        return self._html("cards.html", {"waiting": waiting})

    async def run_graph(self, request: Request) -> Response:
        """The picture of a run the inbox shows (a listed or answered question's, a fork's):
        its graph, each node with where it stands, its forks and parent as branches
        (``app/run_picture.py``), as an SVG image."""
        run_id = request.path_params["run_id"]
        if not self.forking.shows(run_id):
            return PlainTextResponse(f"{run_id} has no question in this inbox\n", 404)
        try:
            entries = await self.agents.blackboard(run_id)
            end = await self.agents.run_end(run_id)
            branches = await self.forking.branches(run_id)
        except UNREACHABLE as err:
            return PlainTextResponse(f"cannot read {run_id}: {err}\n", 503)
        status = None  # no worker answers (a stuck run): the blackboard alone
        if end is None:
            with suppress(*UNREACHABLE, WorkflowQueryFailedError):
                wait = QUESTION_QUERY_TIMEOUT.total_seconds()
                status = await asyncio.wait_for(self.agents.status(run_id), wait)
        team = team_of(status.team if status is not None else self._asked_team(run_id))
        views = node_views(entries, status, end.state if end else None, team)
        return Response(svg(views, team, branches), media_type="image/svg+xml")

    def _asked_team(self, run_id: str) -> TeamPin | None:
        """The team a listed question of ``run_id`` says its run follows (None: the software
        team, or no question of the run was read)."""
        for q in self.shown.values():
            if q.run_id == run_id and q.status is not None and q.status.team is not None:
                return q.status.team
        return None

    async def answer(self, request: Request) -> Response:
        fields = await _form(request)
        if fields is None:
            return PlainTextResponse("refused: the answer is larger than 256 KB\n", 413)
        if not hmac.compare_digest(fields.get("csrf", "").encode(), self.csrf.encode()):
            return PlainTextResponse("refused: this form is not from this inbox; reload it\n", 403)
        interrupt_id = fields.get("interrupt", "")
        status = await self._question(interrupt_id)
        if isinstance(status, Response):
            return status
        outcome = await self._send(
            status, submitted_fields(status.request, fields), getattr(request.state, "person", None)
        )
        context = {
            "q": WaitingQuestion(interrupt_id, str(status.origin), None, status),
            "outcome": outcome,
            "submitted": fields if outcome.problem else None,
        }
        name = "card.html" if FETCH_HEADER in request.headers else "answered.html"
        return self._html(name, context, 422 if outcome.problem else 200)

    async def _question(self, interrupt_id: str) -> InterruptStatus | Response:
        """The question an answer is for, or why nothing is sent, in one line (never a
        traceback): Temporal does not answer, said at once while the last refresh found it away,
        or the question is not read within ``QUESTION_QUERY_TIMEOUT`` (503: the page keeps what
        the person gave); ``interrupt_id`` names no waiting question of ours (404)."""
        shown = interrupt_id[:200]
        if self.away is not None:
            return _nothing_sent(f"Temporal at {self._where()} does not answer ({self.away})")
        wait = QUESTION_QUERY_TIMEOUT.total_seconds()
        slow = f"{shown} was not read within {wait:g} s (its worker or Temporal is slow or away)"
        try:
            return await asyncio.wait_for(
                self.agents.interrupt_status(interrupt_id, QUESTION_QUERY_TIMEOUT), wait
            )
        except WorkflowQueryFailedError as err:
            return PlainTextResponse(f"cannot read {shown}: {err}\n", 404)
        except RPCError as err:
            if err.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
                return PlainTextResponse(f"{shown} is not a waiting question: {err.message}\n", 404)
            if err.status is RPCStatusCode.DEADLINE_EXCEEDED:
                return _nothing_sent(slow)
            return _nothing_sent(f"Temporal at {self._where()} does not answer ({err.message})")
        except TimeoutError:
            return _nothing_sent(slow)
        except (RuntimeError, OSError) as err:
            return _nothing_sent(f"Temporal at {self._where()} does not answer ({err})")
        except ValueError:  # pydantic's ValidationError: the status of another kind of workflow
            return PlainTextResponse(
                f"{shown} is not a question of agent-interrupts (another kind of workflow): "
                "answer a question this inbox lists\n",
                404,
            )

    def _where(self) -> str:
        return str(self.agents.client.service_client.config.target_host)

    async def ignore(self, request: Request) -> Response:
        """Ignore a question (with the reason, recorded in this inbox) or show it again."""
        fields = await _form(request)
        if fields is None or not hmac.compare_digest(
            fields.get("csrf", "").encode(), self.csrf.encode()
        ):
            return PlainTextResponse("refused: this form is not from this inbox; reload it\n", 403)
        interrupt_id = fields.get("interrupt", "")
        if interrupt_id not in self.shown:  # only what this inbox lists: its file stays bounded
            return PlainTextResponse(f"{interrupt_id[:200]} is not a listed question\n", 404)
        if fields.get("restore"):
            self.ignored.restore(interrupt_id)
            message = f"{interrupt_id} is listed again"
        else:
            try:
                who = getattr(request.state, "person", None) or "someone"
                self.ignored.ignore(interrupt_id, fields.get("reason", ""), who)
            except ValueError as err:
                return PlainTextResponse(f"{err}\n", 422)
            message = f"{interrupt_id} is ignored in this inbox; it still waits in Temporal"
        if FETCH_HEADER in request.headers:
            return PlainTextResponse(message + "\n")
        return RedirectResponse("/", status_code=303)

    async def _send(
        self, status: InterruptStatus, fields: dict[str, str], person: str | None
    ) -> Outcome:
        """Answer through the validated update, signed with ``person`` (``access.Guard``
        names them); a refusal is one line."""
        in_parts = status.answers_in_parts
        if problems := form_problems(status.request, fields, in_parts=in_parts):
            return Outcome(problem="; ".join(problems))
        try:
            resolution = resolution_from_form(fields, status.origin, team_of(status.team))
            name = person_name(person or self.agents.person)
            resolution = resolution.model_copy(update={"answered_by": name})
            ack = await self.agents.resolve(status.workflow_id, resolution, door=Door.INBOX)
        except ValidationError as err:
            return Outcome(problem=describe_validation_error(err))
        except (ValueError, ResolutionRejected) as err:
            return Outcome(problem=str(err))
        except RPCError as err:
            return Outcome(problem=f"Temporal said: {err.message}")
        answer = Answer(
            status.workflow_id,
            str(status.origin),
            status.request.reason,
            name or resolution.resolved_by.value,  # as the list of answers names them
            datetime.now(UTC),
            decisions(status.request, resolution),
        )
        message = accepted(ack.message, status)
        later = unanswered_parts(status.request, resolution) if in_parts else {}
        if later and "asked again" not in message:
            message += f"; {', '.join(later)} left for later: asked again at once"
        return Outcome(answer=answer, message=message)

    async def _lists(
        self, filters: Filters = NO_FILTERS, *, read_carded: bool = True
    ) -> dict[str, object]:
        """One page of the waiting questions (narrowed by run on the server; the other filters
        narrow the page), and the answered ones. A whole page (``read_carded`` False) shows the
        questions whose listing carried their cards as the cards say, and leaves their reads to
        the page's first refresh."""
        narrowed = WaitingFilter(run=filters.run)
        try:
            query = narrowed.query()
        except WaitingFilterError:  # not a run id's characters: the page's own filter says none
            narrowed = WaitingFilter()
            query = narrowed.query()
        page, token = self.pages.start_of(query, filters.page)

        async def listed_and_read() -> tuple[WaitingPage, list[WaitingQuestion]]:
            listed = await self.agents.waiting_page(self.limit, token, narrowed)
            read = await self.reader.questions(listed.executions, read_carded=read_carded)
            return listed, read

        # the reads and the answers' histories overlap the other visibility calls
        (listed_page, read), (answered, found), total, stuck = await asyncio.gather(
            listed_and_read(),
            self._newest_answers(),
            self.agents.count_waiting(narrowed),
            stuck_ids(self.agents.client),
        )
        executions = listed_page.executions
        if listed_page.next_token is not None and len(executions) == self.limit:
            self.pages.learn(query, page + 1, listed_page.next_token)
        before = (page - 1) * self.limit
        waiting = [
            replace(q, problem=stuck.get(q.interrupt_id) or stuck.get(q.run_id)) for q in read
        ]
        if self.away is not None:
            log.warning("Temporal answers again; the inbox lists the questions")
            self.away = None
        self.shown = {q.interrupt_id: q for q in waiting}
        more = total - before - len(waiting)
        if more <= 0 and page == 1 and not filters.run:
            self.ignored.forget_except(set(self.shown))
        ignored = [q for q in waiting if q.interrupt_id in self.ignored.records]
        listed = [
            q
            for q in waiting
            if filters.keeps(q) and (filters.ignored or q.interrupt_id not in self.ignored.records)
        ]
        known = self.answers | {a.interrupt_id: a for a in found if a is not None}
        self.answers = {i: known[i] for i, _ in answered if i in known}
        return {
            "unknown": False,
            "waiting": listed,
            "more": max(more, 0),
            "answered": list(self.answers.values()),
            "stubs": False,
            "ignored": len(ignored),
            "hidden": len(waiting) - len(listed),
            "runs": distinct_runs(waiting),
            "agents": distinct_agents(waiting),
            "page": page,
            "pages": max(1, math.ceil(total / self.limit)),
            "next_page": page_address(filters.params(), page + 1) if more > 0 else "",
            "previous_page": page_address(filters.params(), page - 1) if page > 1 else "",
        }

    async def _newest_answers(
        self,
    ) -> tuple[list[tuple[str, datetime | None]], list[Answer | None]]:
        """The newest answered questions (id, when closed) and the answers of those not kept."""
        answered = await self.agents.answered(ANSWERS_SHOWN)
        unknown = [(i, closed) for i, closed in answered if i not in self.answers]
        return answered, await asyncio.gather(*(self._answer(*row) for row in unknown))

    async def _answer(self, interrupt_id: str, closed: datetime | None) -> Answer | None:
        """The answer of a closed question; None for one whose history cannot be read as ours
        (the list shows the others)."""
        try:
            return await self.agents.answer(interrupt_id, closed)
        except (RPCError, ValueError):
            return None

    def _html(self, name: str, context: dict[str, object], status: int = 200) -> Response:
        return HTMLResponse(self.templates.get_template(name).render(**context), status)


def _nothing_sent(why: str) -> Response:
    return PlainTextResponse(
        f"nothing was sent: {why}; what you gave stays in this page: send it again once "
        "Temporal answers\n",
        503,
    )


_EMPTY: dict[str, object] = {
    "unknown": True,
    "waiting": [],
    "more": 0,
    "answered": [],
    "stubs": False,
    "ignored": 0,
    "hidden": 0,
    "runs": [],
    "agents": [],
    "page": 1,
    "pages": 1,
    "next_page": "",
    "previous_page": "",
}


async def _form(request: Request) -> dict[str, str] | None:
    """The url-encoded form (last value of a repeated name); None when it is too large."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    return dict(parse_qsl(body.decode(errors="replace"), keep_blank_values=True))


async def _static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in {"inbox.js", "inbox.css"}:
        return PlainTextResponse("not found\n", 404)
    return FileResponse(STATIC / name)


def _redirect_targets(status: InterruptStatus) -> list[str]:
    """The agents a person may send the run on to from this question, in the run's team."""
    return redirect_targets(status.origin, team_of(status.team))


def _when(moment: datetime | None) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" if moment else "none"
