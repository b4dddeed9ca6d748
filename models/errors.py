"""The project's error hierarchy. Each error knows whether retrying can help (``retryable``)
and says in one line what was wrong and how to fix it (encode/httpx ``_exceptions.py``):

* AgentWorkflowError
  * InvalidLlmReply: the model's output never validated
  * LlmConfigurationError: the endpoint refused our key or settings
    * LlmContextExceeded: the prompt does not fit the model's context
  * LlmUnavailable (retryable): rate limit, timeout, 5xx
    * LlmTimedOut (retryable)
  * LlmReplyTooLarge: a reply too large for Temporal
  * WorkerCannotServe (retryable): this worker lacks a path or a program
  * PromptRenderError
  * StepLimitExceeded
  * DegenerateLoop
  * AgentFailed
  * InterruptFailed
  * InvalidInput
  * UndecodablePayload (also ValueError)
  * Rejected (also ValueError): an update or query refused its input
  * StoppedByPerson
  * UnknownAgentType
  * TeamError
    * UnknownTeam: the worker does not serve the run's team
    * TeamDefinitionError (also ValueError): a declared team no run can follow
    * TeamNotHere (also LookupError): a pinned team this process has not seen whole
    * TeamFileError (also ValueError): team files that cannot be teams
  * AnswerRulesError (also ValueError): an answer rules file that cannot be read
  * ForkRefused (also ValueError): a fork whose point, history or answer cannot be taken
  * PayloadKeyError (also ValueError, ``app/codec.py``): an encrypted payload this process
    cannot open
  * TokenRefused (also ValueError, ``models/signing.py``): a token that answers nothing
  * NotificationFailed (retryable)
  * NotificationRefused
  * WorkspaceUnavailable (``activities/tools/workspace.py``)
  * GitWorkFailed (retryable, ``activities/tools/gitwork.py``)
  * WorktreeLimit (``activities/tools/gitwork.py``)

An activity raises one as ``to_application_error()``, whose failure type is the class's name
(``failure_type``); ``tests/models/test_errors.py`` checks this drawing against the classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Self

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from temporalio.exceptions import ApplicationError

from agent_interrupts.models.limits import ECHO_CHARS, clip


class AgentWorkflowError(Exception):
    """Base error. Messages say what was wrong and how to fix it."""

    retryable = False
    next_retry_delay: timedelta | None = None
    """How long Temporal waits before the next attempt; None: the retry policy's interval."""

    def with_message(self, message: str) -> Self:
        """The same error with another message (e.g. redacted); it retries the same way."""
        same = type(self)(message)
        same.retryable = self.retryable
        same.next_retry_delay = self.next_retry_delay
        return same

    def to_application_error(self) -> ApplicationError:
        return ApplicationError(
            str(self),
            type=type(self).__name__,
            non_retryable=not self.retryable,
            next_retry_delay=self.next_retry_delay,
        )


class InvalidLlmReply(AgentWorkflowError):
    """The model never produced output that validates against the agent's schema."""


class LlmConfigurationError(AgentWorkflowError):
    """The LLM endpoint rejected our credentials or settings (401/403/404)."""


class LlmContextExceeded(LlmConfigurationError):
    """The endpoint refused a prompt that does not fit the model's context (HTTP 400): the agent
    call drops its oldest optional context and tries again, then asks a person."""


class LlmUnavailable(AgentWorkflowError):
    """Rate limit, timeout or 5xx: Temporal's retry policy tries again."""

    retryable = True


class WorkerCannotServe(AgentWorkflowError):
    """A condition of the worker that took the step (a path it cannot see, a program it lacks):
    Temporal tries again, so another worker can serve it (WORKER_CONDITION_ATTEMPTS)."""

    retryable = True


class PromptRenderError(AgentWorkflowError):
    """A prompt template is missing or references a value that was not supplied."""


class StepLimitExceeded(AgentWorkflowError):
    """The run took more agent steps than its limit; it is probably looping."""


class DegenerateLoop(AgentWorkflowError):
    """A step has no earlier request to return to (an interrupt's origin, the context manager)."""


class AgentFailed(AgentWorkflowError):
    """An agent activity failed for good; the run ends."""


class InterruptFailed(AgentWorkflowError):
    """The interrupt child workflow failed (e.g. nobody answered and the outcome is FAIL)."""


class InvalidInput(AgentWorkflowError):
    """A workflow was started with a missing or invalid input."""


class UndecodablePayload(AgentWorkflowError, ValueError):
    """A payload in an encoding the worker cannot decode (a workflow failure type)."""


class PayloadKeyError(AgentWorkflowError, ValueError):
    """An encrypted payload this process cannot open: no keys set, a key id it does not hold, or
    a key that does not fit (``app.codec``). The message names the setting and the key id, never
    a key."""


class Rejected(AgentWorkflowError, ValueError):
    """An update or query refused its input; the caller sees this message as one line, without
    the worker's stack trace (``app.data_converter.OneLineRejections``)."""


class StoppedByPerson(AgentWorkflowError):
    """A person answered a question by stopping the run; the message quotes their reason."""


class UnknownAgentType(AgentWorkflowError):
    """A name that is not an agent of the run's team."""


class TeamError(AgentWorkflowError):
    """A team no run can use: declared wrongly, not served here, or not known to this process."""


class UnknownTeam(TeamError):
    """A run names a team the worker does not serve (AGENTS_TEAMS)."""


class TeamDefinitionError(TeamError, ValueError):
    """A team that no run can follow: one line per problem, each naming the agent (a
    ``ValueError``, so a pydantic validator that meets it reports a validation problem)."""


class TeamNotHere(TeamError, LookupError):
    """A pin that names a declared team by its content hash alone, which this process has not
    seen whole yet (``remember`` it first: the worker reads it from the run's history)."""


class TeamFileError(TeamError, ValueError):
    """Team files that cannot be teams: one line per problem, each naming its file (and its
    agent when it has one)."""

    def __init__(self, problems: Sequence[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


def describe_validation_error(err: ValidationError, limit: int = 8) -> str:
    """``field.path: problem; ...`` for the first ``limit`` problems, every part clipped.

    Locations can hold a caller's dict keys and messages can quote input: both are clipped so a
    huge value never reaches an event, a log or an update's rejection, and a key that is not
    printable (a newline) is quoted so the description stays one line.
    """
    return describe_problems(err.errors(include_url=False, include_input=False), limit)


def describe_problems(problems: Sequence[ErrorDetails], limit: int = 8) -> str:
    """``describe_validation_error`` of a selection of a ValidationError's problems."""
    parts = []
    for e in problems[:limit]:
        where = ".".join(clip(_printable(str(p)), 60) for p in e["loc"]) or "(root)"
        parts.append(f"{where}: {clip(_printable(e['msg']), ECHO_CHARS)}")
    if len(problems) > limit:
        parts.append(f"... and {len(problems) - limit} more problems")
    return "; ".join(parts)


def _printable(text: str) -> str:
    return text if text.isprintable() else repr(text)


def failure_type(err: BaseException) -> str | None:
    """The type of the ApplicationError behind a Temporal failure (``LlmUnavailable``), if any."""
    cause: BaseException | None = err
    while cause is not None and not isinstance(cause, ApplicationError):
        cause = cause.__cause__
    return cause.type if isinstance(cause, ApplicationError) else None


def failure_message(err: BaseException) -> str:
    """The message of the ApplicationError behind a Temporal failure, else the failure's text."""
    cause: BaseException | None = err
    while cause is not None and not isinstance(cause, ApplicationError):
        cause = cause.__cause__
    return cause.message if isinstance(cause, ApplicationError) else str(err)


class LlmTimedOut(LlmUnavailable):
    """The LLM endpoint did not answer within the request timeout; Temporal tries again."""


class LlmReplyTooLarge(AgentWorkflowError):
    """The model's reply is too large to pass through Temporal; asking again will not shrink it."""


class AnswerRulesError(AgentWorkflowError, ValueError):
    """An answer rules file (``AGENTS_ANSWER_RULES``) that cannot be read: the worker does not
    start, in one line naming the file."""


class ForkRefused(AgentWorkflowError, ValueError):
    """A fork that cannot start (``docs/forks.md``): its point does not exist, its parent's
    history is gone or cannot be replayed, or its answer is not one the question offers; one
    line saying which, and no fork is started."""


class NotificationFailed(AgentWorkflowError):
    """A receiver is down, slow or answered 429/5xx: Temporal tries the delivery again."""

    retryable = True


class NotificationRefused(AgentWorkflowError):
    """A receiver refused the delivery (4xx, SMTP login or recipients): retrying will not help."""


RESCUABLE_FAILURES = frozenset(
    {LlmUnavailable.__name__, LlmTimedOut.__name__, LlmReplyTooLarge.__name__}
)
"""Model failures a person can rescue (run the agent again now or later, or tell it how to go
on): an agent call that ends in one asks a person at its node instead of failing the run. A
refused key or an unknown model (LlmConfigurationError) still fails it in one line."""
