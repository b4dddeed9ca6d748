"""One LLM code path: the openai SDK, Chat Completions, strict json_schema structured output."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError
from temporalio.exceptions import ApplicationError

from agent_interrupts.activities import metrics
from agent_interrupts.activities.attempts import retry_or_last
from agent_interrupts.activities.output_schema import (
    OutputProfile,
    reply_json,
    shared_decoder_schema,
)
from agent_interrupts.activities.redaction import add_secret, install_log_redaction, redact
from agent_interrupts.models.agent_call import CallRecord
from agent_interrupts.models.errors import (
    AgentWorkflowError,
    InvalidLlmReply,
    LlmConfigurationError,
    LlmContextExceeded,
    LlmReplyTooLarge,
    LlmTimedOut,
    LlmUnavailable,
    describe_validation_error,
)
from agent_interrupts.models.limits import clip
from agent_interrupts.models.policies import (
    AGENT_CALL_MARGIN,
    AGENT_START_TO_CLOSE,
    LLM_ENDPOINT_ATTEMPTS,
    LLM_MAX_OUTPUT_TOKENS,
    LLM_REPLY_LIMIT,
    LLM_REQUEST_TIMEOUT,
    LLM_VALIDATION_ATTEMPTS,
)
from agent_interrupts.models.results import SCHEMA_VERSION

if TYPE_CHECKING:  # the SDK is imported where a call needs it: a CLI command need not load it
    import openai
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

M = TypeVar("M", bound=BaseModel)

DEFAULT_MODEL = "gpt-4o-mini"
OFFLINE_MODEL = "offline-deterministic"
CONTROLLER = "INTERRUPT_REVIEWER"
"""The agent name of the reviewing call that answers interrupts (AGENT_REVIEW, escalations)."""


@dataclass(frozen=True)
class LlmSettings:
    """Where the LLM is and which model each agent uses. The key is never logged or shown.

    ``request_timeout`` times ``validation_attempts`` must leave AGENT_CALL_MARGIN inside
    AGENT_START_TO_CLOSE, so a slow endpoint fails with our message, not Temporal's timeout.
    """

    api_key: str | None = field(default=None, repr=False)
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    agent_models: dict[str, str] = field(default_factory=dict)
    controller_model: str | None = None
    """Answers interrupts in place of a person (CONTROLLER_MODEL); None: ``model`` does."""
    validation_attempts: int = LLM_VALIDATION_ATTEMPTS
    max_output_tokens: int = LLM_MAX_OUTPUT_TOKENS
    """``max_completion_tokens`` of every request (LLM_MAX_OUTPUT_TOKENS)."""
    agent_max_output_tokens: dict[str, int] = field(default_factory=dict)
    """Per agent, of any team (LLM_MAX_OUTPUT_TOKENS_<AGENT>)."""
    temperature: float | None = None
    """Sampling temperature (LLM_TEMPERATURE); None: the endpoint's default."""
    context_tokens: int | None = None
    """The model's context in tokens (LLM_CONTEXT_TOKENS): prompts are trimmed to fit it with
    the output limit; None: not trimmed."""
    endpoint_attempts: int = LLM_ENDPOINT_ATTEMPTS
    """Attempts of a call that meets the endpoint's retryable errors (429, 5xx, timeouts,
    refused connections); attempts a lost worker cost do not count (LLM_ENDPOINT_ATTEMPTS)."""
    request_timeout: timedelta = LLM_REQUEST_TIMEOUT
    profile: OutputProfile = OutputProfile.STANDARD
    """How much a reply may write per field (LLM_PROFILE): the bounds of every output schema."""
    max_phase_rounds: int | None = None
    """How many times a model may send a run into one phase (LLM_MAX_PHASE_ROUNDS): then the
    routes into it leave the agents' schemas; None: no bound but the run's step budget."""
    max_questions: int | None = None
    """How many questions of its own a model may ask for one agent type in a run
    (LLM_MAX_QUESTIONS): then ``interruptRequest`` leaves that agent's schema; None: no bound."""

    @property
    def repair_at_once(self) -> bool:
        """Whether a reply ``check`` refuses is repaired on its first attempt, not sent back: a
        small model did not mend one malformed question in three when told
        (``bench.real_model``), and each attempt costs it most of a minute."""
        return self.profile is OutputProfile.SMALL

    def __post_init__(self) -> None:
        budget = self.request_timeout * self.validation_attempts + AGENT_CALL_MARGIN
        if self.validation_attempts < 1 or budget > AGENT_START_TO_CLOSE:
            raise ValueError(
                f"{self.validation_attempts} validation attempts (LLM_VALIDATION_ATTEMPTS) of "
                f"{self.request_timeout.total_seconds():g} s each (LLM_REQUEST_TIMEOUT) do not "
                f"fit the agent activity's {AGENT_START_TO_CLOSE.total_seconds():g} s "
                "start-to-close timeout (models/policies.py); lower one of them"
            )

    @property
    def offline(self) -> bool:
        return not self.api_key

    def max_tokens_for(self, agent: str, factor: int = 1) -> tuple[int, str]:
        """The output token limit of ``agent``'s requests, and the setting that sets it; a
        ``factor`` a person gave a stuck agent's re-run multiplies it."""
        if agent in self.agent_max_output_tokens:
            limit, setting = self.agent_max_output_tokens[agent], f"LLM_MAX_OUTPUT_TOKENS_{agent}"
        else:
            limit, setting = self.max_output_tokens, "LLM_MAX_OUTPUT_TOKENS"
        if factor == 1:
            return limit, setting
        return limit * factor, f"{setting} x {factor}, given by a person"

    def model_for(self, agent: str) -> str:
        if self.offline:
            return OFFLINE_MODEL
        if agent == CONTROLLER and self.controller_model:
            return self.controller_model
        return self.agent_models.get(agent, self.model)

    def is_controller(self, agent: str) -> bool:
        """Whether ``agent``'s calls go to CONTROLLER_MODEL."""
        return agent == CONTROLLER and not self.offline and bool(self.controller_model)

    def setting_for(self, agent: str) -> str:
        """The setting that chooses ``agent``'s model, as error messages name it."""
        if self.is_controller(agent):
            return "CONTROLLER_MODEL"
        if agent in self.agent_models:
            return f"AGENT_MODEL_{agent}"
        return f"AGENT_MODEL, or AGENT_MODEL_{agent} for this agent"


def messages_sha256(messages: list[dict[str, Any]]) -> str:
    """The fingerprint of a list of chat messages (canonical JSON, UTF-8)."""
    canonical = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class ToolCallsRequested(Exception):
    """The model asked for tool calls instead of answering: ``calls`` are (id, name, arguments)."""

    def __init__(self, model: str, calls: list[tuple[str, str, str]]) -> None:
        super().__init__(f"{model} asked for {len(calls)} tool calls")
        self.model = model
        self.calls = calls


@dataclass(frozen=True)
class StructuredReply:
    """A validated value and the record of the call that produced it."""

    value: Any
    call: CallRecord
    repaired: str = ""
    """Why the value, refused by ``check`` on the last attempt, was repaired instead ("": it
    was not)."""


@dataclass
class _Usage:
    """Tokens and waiting time, summed over a call's attempts."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0

    def add(self, completion: ChatCompletion, seconds: float) -> None:
        self.seconds += seconds
        if completion.usage is not None:
            self.prompt_tokens = (self.prompt_tokens or 0) + completion.usage.prompt_tokens
            used = completion.usage.completion_tokens
            self.completion_tokens = (self.completion_tokens or 0) + used


class StructuredLlm:
    """Asks for a structured output, validates it, feeds validation errors back, maps failures.

    Every message it raises is redacted; constructing one registers the key as a secret and puts
    the redacting filter on the loggers of openai, httpx2, Temporal and this project.
    """

    def __init__(self, client: AsyncOpenAI, settings: LlmSettings) -> None:
        self._client = client
        self._settings = settings
        add_secret(settings.api_key)
        install_log_redaction()

    @property
    def settings(self) -> LlmSettings:
        return self._settings

    async def complete(
        self,
        *,
        agent: str,
        messages: list[dict[str, Any]],
        output_model: type[M],
        template_version: str,
        schema: dict[str, Any] | None = None,
        check: Callable[[M], None] | None = None,
        repair: Callable[[M], M | None] | None = None,
        tools: dict[str, Any] | None = None,
        output_tokens_factor: int = 1,
        model: str | None = None,
    ) -> StructuredReply:
        """Return a validated ``output_model``; ``check`` may reject a valid one with ValueError.
        On the last attempt (with ``LLM_PROFILE=small`` the first) ``repair`` may turn a value
        ``check`` rejected into one to use (None: it cannot); the reply then says why in
        ``repaired``.

        ``template_version`` names the template set that rendered ``messages``; it is recorded.
        ``tools`` (``{"tools": [...], "tool_choice": ...}``) offers tool calls: a model that asks
        for some raises ToolCallsRequested (``activities/tools/loop.py`` runs them).
        ``output_tokens_factor`` multiplies the agent's output token limit; ``model`` replaces
        the agent's configured model (a fork at a step with another model).
        """
        try:
            return await self._complete(
                agent,
                messages,
                output_model,
                schema,
                check,
                repair,
                template_version,
                tools or {},
                self._settings.max_tokens_for(agent, output_tokens_factor),
                model,
            )
        except AgentWorkflowError as err:
            raise err.with_message(redact(str(err))) from None

    async def _complete(
        self,
        agent: str,
        messages: list[dict[str, Any]],
        output_model: type[M],
        schema: dict[str, Any] | None,
        check: Callable[[M], None] | None,
        repair: Callable[[M], M | None] | None,
        template_version: str,
        tools: dict[str, Any],
        max_tokens: tuple[int, str],
        model_override: str | None = None,
    ) -> StructuredReply:
        model = model_override or self._settings.model_for(agent)
        setting = self._settings.setting_for(agent)
        name = output_model.__name__
        if schema is None:
            schema = shared_decoder_schema(output_model, self._settings.profile)
        response_format: Any = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
        conversation = list(messages)
        problem = ""
        attempts = self._settings.validation_attempts
        usage = _Usage()
        for attempt in range(1, attempts + 1):
            try:
                content = await self._ask(
                    agent, model, conversation, response_format, usage, tools, max_tokens[0]
                )
            except ReplyCutOff as cut:
                limit, limit_setting = max_tokens
                problem = (
                    f"the reply was cut off at the output token limit ({limit} tokens, "
                    f"{limit_setting}) before its JSON was complete"
                )
                conversation += [
                    {"role": "assistant", "content": cut.content},
                    {
                        "role": "user",
                        "content": f"Your reply was cut off: {problem}. Reply again with "
                        "shorter JSON: fewer and briefer items, no repetition.",
                    },
                ]
                continue
            size = len(content.encode())
            if size > LLM_REPLY_LIMIT:
                raise LlmReplyTooLarge(
                    f"{agent}: the model {model!r} replied with {size / 2**20:.1f} MiB, more "
                    f"than the {LLM_REPLY_LIMIT / 2**20:g} MiB an agent's result may carry through "
                    "Temporal (payload limit 2 MiB); asking again will not help. The model is "
                    f"probably repeating itself: choose another model ({setting}) or narrow the "
                    "goal."
                )
            repaired = ""
            try:
                value = output_model.model_validate_json(reply_json(content, schema))
                if check is not None:
                    try:
                        check(value)
                    except ValueError as refused:
                        last = attempt == attempts or self._settings.repair_at_once
                        fixed = repair(value) if repair and last else None
                        if fixed is None:
                            raise
                        value, repaired = fixed, str(refused)
                call = CallRecord(
                    model=model,
                    attempts=attempt,
                    prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens,
                    latency_ms=round(usage.seconds * 1000),
                    schema_name=name,
                    schema_version=SCHEMA_VERSION,
                    messages_sha256=messages_sha256(messages),
                    template_version=template_version,
                    controller=self._settings.is_controller(agent),
                )
                return StructuredReply(value=value, call=call, repaired=repaired)
            except (ValidationError, ValueError) as err:
                metrics.invalid_reply(agent)
                problem = _describe(err)
                conversation += [
                    {"role": "assistant", "content": content},
                    {
                        "role": "user",
                        "content": f"Your reply was not a valid {name}: {problem}\n"
                        "Reply again with JSON that fixes every problem listed.",
                    },
                ]
        raise InvalidLlmReply(
            f"{agent}: the model {model!r} did not produce a valid {name} in {attempts} "
            f"attempts. Last problem: {problem}. Check that the model supports strict "
            f"json_schema structured output, or choose another model ({setting})."
        )

    def _retryable(self, kind: type[LlmUnavailable], what: str, fix: str) -> LlmUnavailable:
        """One more of the endpoint's retryable errors: the call stops after
        ``endpoint_attempts`` of them, however many attempts lost workers cost."""
        limit = self._settings.endpoint_attempts
        return retry_or_last(kind, "endpoint", limit, what, fix)

    async def _ask(
        self,
        agent: str,
        model: str,
        messages: list[dict[str, Any]],
        response_format: Any,
        usage: _Usage,
        tools: dict[str, Any],
        max_tokens: int,
    ) -> str:
        import openai
        from openai.types.chat import ChatCompletion
        from openai.types.chat import ChatCompletionMessageFunctionToolCall as FunctionToolCall

        where = str(self._client.base_url).rstrip("/")
        timeout = self._settings.request_timeout.total_seconds()
        setting = self._settings.setting_for(agent)
        started = time.monotonic()
        options: dict[str, Any] = {
            "max_completion_tokens": max_tokens,
            **tools,
        }
        if self._settings.temperature is not None:
            options["temperature"] = self._settings.temperature
        try:
            completion = await self._client.chat.completions.create(
                model=model,
                messages=messages,  # type: ignore[arg-type]
                response_format=response_format,
                timeout=timeout,
                **options,
            )
        except (openai.AuthenticationError, openai.PermissionDeniedError) as err:
            raise LlmConfigurationError(
                f"{agent}: the LLM endpoint at {where} rejected the API key "
                f"(HTTP {err.status_code}). Set OPENAI_API_KEY to a valid key for "
                "OPENAI_BASE_URL, or unset it to use the offline model."
            ) from None
        except openai.NotFoundError as err:
            raise LlmConfigurationError(
                f"{agent}: the LLM endpoint at {where} answered HTTP {err.status_code} for "
                f"model {model!r}. Set {setting} to a model the server serves, and check "
                "OPENAI_BASE_URL."
            ) from None
        except (openai.BadRequestError, openai.UnprocessableEntityError) as err:
            if _context_exceeded(err):
                raise LlmContextExceeded(
                    f"{agent}: the prompt and the output limit do not fit the context of model "
                    f"{model!r} ({_excerpt(err)}). Set LLM_CONTEXT_TOKENS to the model's context "
                    "so prompts are trimmed, lower LLM_MAX_OUTPUT_TOKENS, or choose a model "
                    f"with a larger context ({setting})."
                ) from None
            raise LlmConfigurationError(
                f"{agent}: the LLM endpoint at {where} refused the request "
                f"(HTTP {err.status_code}: {_excerpt(err)}). The model {model!r} may not "
                f"support strict json_schema output: choose another model ({setting})."
            ) from None
        except openai.RateLimitError as err:
            raise self._retryable(
                LlmUnavailable,
                f"{agent}: the LLM endpoint at {where} is rate limiting us "
                f"(HTTP 429: {_excerpt(err)})",
                f"wait for the quota to reset, raise it, or choose another model ({setting})",
            ) from None
        except openai.APIStatusError as err:
            raise self._retryable(
                LlmUnavailable,
                f"{agent}: the LLM endpoint at {where} answered HTTP {err.status_code} "
                f"({_excerpt(err)})",
                "check the server behind OPENAI_BASE_URL (its logs and load), or choose "
                f"another model ({setting})",
            ) from None
        except openai.APIResponseValidationError:
            raise LlmConfigurationError(_NOT_CHAT_COMPLETION.format(agent=agent)) from None
        except openai.APITimeoutError:
            raise self._retryable(
                LlmTimedOut,
                f"{agent}: the LLM endpoint at {where} did not answer within {timeout:g} s",
                "check that the server is up and not overloaded, choose a faster model "
                f"({setting}), or raise the worker's LLM_REQUEST_TIMEOUT (seconds)",
            ) from None
        except openai.APIConnectionError:
            raise self._retryable(
                LlmUnavailable,
                f"{agent}: could not connect to the LLM endpoint at {where}",
                "check OPENAI_BASE_URL and that the server is running",
            ) from None
        if not isinstance(completion, ChatCompletion) or not completion.choices:
            raise LlmConfigurationError(_NOT_CHAT_COMPLETION.format(agent=agent))
        seconds = time.monotonic() - started
        usage.add(completion, seconds)
        used = completion.usage
        metrics.llm_call(
            agent,
            model,
            seconds,
            used.prompt_tokens if used else 0,
            used.completion_tokens if used else 0,
        )
        message = completion.choices[0].message
        if message.tool_calls:
            calls = [c for c in message.tool_calls if isinstance(c, FunctionToolCall)]
            raise ToolCallsRequested(
                model, [(c.id, c.function.name, c.function.arguments) for c in calls]
            )
        if completion.choices[0].finish_reason == "length":
            raise ReplyCutOff(message.content or "")
        if message.refusal:
            return json.dumps({"refusal": message.refusal})
        return message.content or ""


_NOT_CHAT_COMPLETION = (
    "{agent}: the endpoint at OPENAI_BASE_URL did not answer with a chat.completion; "
    "point OPENAI_BASE_URL at the server's OpenAI-compatible /v1 root."
)


def as_activity_error(err: Exception) -> ApplicationError:
    """The failure an activity raises for ``err``, with every secret redacted from it."""
    if isinstance(err, AgentWorkflowError):
        return err.with_message(redact(str(err))).to_application_error()
    return ApplicationError(redact(str(err)), type=type(err).__name__)


def _describe(err: Exception) -> str:
    return describe_validation_error(err) if isinstance(err, ValidationError) else str(err)


class ReplyCutOff(Exception):
    """The reply stopped at the output token limit (``finish_reason`` "length")."""

    def __init__(self, content: str) -> None:
        super().__init__("the reply was cut off at the output token limit")
        self.content = content


def _context_exceeded(err: openai.APIStatusError) -> bool:
    """Whether the endpoint refused a request that does not fit the model's context."""
    body = err.body if isinstance(err.body, dict) else {}
    text = f"{body.get('code', '')} {body.get('message', '')} {err.message}".lower()
    return "context_length_exceeded" in text or (
        "context" in text and any(w in text for w in ("length", "size", "window", "too long"))
    )


def _excerpt(err: openai.APIStatusError) -> str:
    """The endpoint's own error message, redacted before it is shortened (no partial keys)."""
    body = err.body
    text = str(body.get("message") or body) if isinstance(body, dict) else str(err.message)
    return clip(redact(text))
