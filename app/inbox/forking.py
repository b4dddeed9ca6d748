"""The inbox's "try another answer": an answered question's form, the fork it starts through the
SDK (``client.fork``, ``docs/forks.md``), and a run's page with its forks as branches.

The form is the answer card's (its choices, texts, confirmations, a stop or another agent to
continue at), checked as an answer is (``form_problems``; the fork refuses what ``resolve``
refuses), behind the same token and cross-site guard and the page's CSRF value. A person's
name signs the fork (``forkedBy``) and its answer (``answeredBy``)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from temporalio.service import RPCError

from agent_interrupts.app.connect import UNREACHABLE
from agent_interrupts.app.fork_lineage import fork_link
from agent_interrupts.app.inbox.form import (
    form_problems,
    resolution_from_form,
    submitted_fields,
)
from agent_interrupts.app.people import person_name
from agent_interrupts.app.run_picture import ForkBranch, fork_branches
from agent_interrupts.models.errors import describe_validation_error
from agent_interrupts.models.forks import ListedFork
from agent_interrupts.models.interrupt_flow import InterruptStatus
from agent_interrupts.models.interrupts import Door
from agent_interrupts.models.team_build import team_of

if TYPE_CHECKING:
    from agent_interrupts.app.inbox.web import Inbox

QUESTION_MARK = "-interrupt-"
"""What a question's id holds between its run's id and its number."""


def run_of(interrupt_id: str) -> str:
    """The run that asked ``interrupt_id`` (``<run id>-interrupt-<n>``)."""
    return interrupt_id.rpartition(QUESTION_MARK)[0]


@dataclass(frozen=True)
class Forked:
    """What became of "try another answer": why nothing started, or the fork."""

    problem: str | None = None
    fork_id: str | None = None
    message: str = ""


class ForkPages:
    """``GET /fork?interrupt=ID`` (the form), ``POST /fork`` (the fork), ``GET /runs/ID`` (a
    run with its forks and its parent, each a link)."""

    def __init__(self, inbox: Inbox) -> None:
        self.inbox = inbox
        self.runs: set[str] = set()
        """Runs this inbox forked or showed as a branch: their pages and pictures are served."""

    def shows(self, run_id: str) -> bool:
        """Whether the inbox shows ``run_id``: a run of a listed or answered question, or one
        it forked or showed as a branch."""
        inbox = self.inbox
        return (
            run_id in self.runs
            or run_id in {q.run_id for q in inbox.shown.values()}
            or run_id in {run_of(i) for i in inbox.answers}
        )

    async def form(self, request: Request) -> Response:
        interrupt_id = request.query_params.get("interrupt", "")[:200]
        status = await self.inbox._question(interrupt_id)
        if isinstance(status, Response):
            return status
        return self._page(interrupt_id, status, Forked(), None)

    async def fork(self, request: Request) -> Response:
        from agent_interrupts.app.inbox.web import _form

        fields = await _form(request)
        if fields is None:
            return PlainTextResponse("refused: the answer is larger than 256 KB\n", 413)
        csrf = self.inbox.csrf.encode()
        if not hmac.compare_digest(fields.get("csrf", "").encode(), csrf):
            return PlainTextResponse("refused: this form is not from this inbox; reload it\n", 403)
        interrupt_id = fields.get("interrupt", "")[:200]
        status = await self.inbox._question(interrupt_id)
        if isinstance(status, Response):
            return status
        forked = await self._start(
            interrupt_id, status, fields, getattr(request.state, "person", None)
        )
        return self._page(
            interrupt_id,
            status,
            forked,
            fields if forked.problem else None,
            422 if forked.problem else 200,
        )

    async def _start(
        self, interrupt_id: str, status: InterruptStatus, fields: dict[str, str], person: str | None
    ) -> Forked:
        """Fork the question's run with the form's answer, signed with ``person``."""
        answer = submitted_fields(status.request, fields)
        if problems := form_problems(status.request, answer):
            return Forked(problem="; ".join(problems))
        try:
            resolution = resolution_from_form(answer, status.origin, team_of(status.team))
            name = person_name(person or self.inbox.agents.person)
            resolution = resolution.model_copy(update={"answered_by": name})
            started = await self.inbox.agents.fork(
                run_of(interrupt_id),
                at=interrupt_id,
                resolution=resolution,
                forked_by=name,
                door=Door.INBOX,
            )
        except ValidationError as err:
            return Forked(problem=describe_validation_error(err))
        except ValueError as err:  # ForkRefused: one line, nothing started
            return Forked(problem=str(err))
        except RPCError as err:
            return Forked(problem=f"Temporal said: {err.message}")
        self.runs.add(started.workflow_id)
        said = started.ack.message if started.ack is not None else "its question was answered"
        return Forked(fork_id=started.workflow_id, message=said)

    def _page(
        self,
        interrupt_id: str,
        status: InterruptStatus,
        forked: Forked,
        submitted: dict[str, str] | None,
        code: int = 200,
    ) -> Response:
        context = {
            "interrupt_id": interrupt_id,
            "run_id": run_of(interrupt_id),
            "s": status,
            "a": self.inbox.answers.get(interrupt_id),
            "outcome": forked,
            "submitted": submitted,
        }
        return self.inbox._html("fork.html", context, code)

    async def run(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        if not self.shows(run_id):
            return PlainTextResponse(f"{run_id[:200]} is not a run this inbox shows\n", 404)
        try:
            branches = await self.branches(run_id)
        except UNREACHABLE as err:
            return PlainTextResponse(f"cannot read {run_id}: {err}\n", 503)
        return self.inbox._html("run.html", {"run_id": run_id, "branches": branches})

    async def branches(self, run_id: str) -> list[ForkBranch]:
        """The run's parent (when it is a fork) and its forks, which the inbox then shows."""
        forks: list[ListedFork] = []
        try:
            forks = await self.inbox.agents.forks(run_id)
        except RPCError:  # the namespace cannot list forks: the parent alone
            forks = []
        drawn = fork_branches(forks, await fork_link(self.inbox.agents.client, run_id))
        self.runs.update(b.workflow_id for b in drawn)
        return drawn
