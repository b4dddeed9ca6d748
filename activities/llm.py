"""One LLM code path: the openai SDK, Chat Completions, strict json_schema structured output."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import openai
from openai import AsyncOpenAI
from openai.lib._pydantic import to_strict_json_schema
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from models.errors import (
    InvalidLlmReply,
    LlmConfigurationError,
    LlmUnavailable,
    describe_validation_error,
)
from workflows.policies import LLM_VALIDATION_ATTEMPTS

M = TypeVar("M", bound=BaseModel)

DEFAULT_MODEL = "gpt-4o-mini"
OFFLINE_MODEL = "offline-deterministic"


@dataclass(frozen=True)
class LlmSettings:
    """Where the LLM is and which model each agent uses. The key is never logged or shown."""

    api_key: str | None = field(default=None, repr=False)
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    agent_models: dict[str, str] = field(default_factory=dict)
    validation_attempts: int = LLM_VALIDATION_ATTEMPTS

    @property
    def offline(self) -> bool:
        return not self.api_key

    def model_for(self, agent: str) -> str:
        if self.offline:
            return OFFLINE_MODEL
        return self.agent_models.get(agent, self.model)


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema OpenAI's strict mode accepts for ``model`` (a fresh copy, cached)."""
    return copy.deepcopy(_strict_schema(model))


@functools.cache
def _strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    return to_strict_json_schema(model)


@dataclass(frozen=True)
class StructuredReply:
    value: Any
    attempts: int
    model: str


class StructuredLlm:
    """Asks for a structured output, validates it, feeds validation errors back, maps failures."""

    def __init__(self, client: AsyncOpenAI, settings: LlmSettings) -> None:
        self._client = client
        self._settings = settings

    async def complete(
        self,
        *,
        agent: str,
        messages: list[dict[str, str]],
        output_model: type[M],
        schema: dict[str, Any] | None = None,
        check: Callable[[M], None] | None = None,
    ) -> StructuredReply:
        """Return a validated ``output_model``; ``check`` may reject a valid one with ValueError."""
        model = self._settings.model_for(agent)
        name = output_model.__name__
        response_format: Any = {
            "type": "json_schema",
            "json_schema": {
                "name": name,
                "schema": schema if schema is not None else strict_schema(output_model),
                "strict": True,
            },
        }
        conversation = list(messages)
        problem = ""
        attempts = self._settings.validation_attempts
        for attempt in range(1, attempts + 1):
            content = await self._ask(agent, model, conversation, response_format)
            try:
                value = output_model.model_validate_json(content)
                if check is not None:
                    check(value)
                return StructuredReply(value=value, attempts=attempt, model=model)
            except (ValidationError, ValueError) as err:
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
            "json_schema structured output, or choose another model (AGENT_MODEL)."
        )

    async def _ask(
        self, agent: str, model: str, messages: list[dict[str, str]], response_format: Any
    ) -> str:
        try:
            completion = await self._client.chat.completions.create(
                model=model,
                messages=messages,  # type: ignore[arg-type]
                response_format=response_format,
            )
        except (openai.AuthenticationError, openai.PermissionDeniedError) as err:
            raise LlmConfigurationError(
                f"{agent}: the LLM endpoint rejected the API key (HTTP {err.status_code}). "
                "Set OPENAI_API_KEY to a valid key for OPENAI_BASE_URL, or unset it to use "
                "the offline model."
            ) from None
        except openai.NotFoundError as err:
            raise LlmConfigurationError(
                f"{agent}: the LLM endpoint answered HTTP {err.status_code} for model {model!r}. "
                "Set AGENT_MODEL (or AGENT_MODEL_<AGENT_TYPE>) to a model the server serves, "
                "and check OPENAI_BASE_URL."
            ) from None
        except openai.BadRequestError as err:
            raise LlmConfigurationError(
                f"{agent}: the LLM endpoint refused the request (HTTP 400): {_error_text(err)}. "
                "The model may not support strict json_schema output; choose another model."
            ) from None
        except (openai.RateLimitError, openai.InternalServerError) as err:
            raise LlmUnavailable(
                f"{agent}: the LLM endpoint is busy or failing (HTTP {err.status_code}); "
                "Temporal will retry."
            ) from None
        except openai.APIStatusError as err:
            raise LlmUnavailable(
                f"{agent}: the LLM endpoint answered HTTP {err.status_code}; Temporal will retry."
            ) from None
        except openai.APIResponseValidationError:
            raise LlmConfigurationError(_NOT_CHAT_COMPLETION.format(agent=agent)) from None
        except openai.APIConnectionError:
            raise LlmUnavailable(
                f"{agent}: could not reach the LLM endpoint; check OPENAI_BASE_URL. "
                "Temporal will retry."
            ) from None
        if not isinstance(completion, ChatCompletion) or not completion.choices:
            raise LlmConfigurationError(_NOT_CHAT_COMPLETION.format(agent=agent))
        message = completion.choices[0].message
        if message.refusal:
            return json.dumps({"refusal": message.refusal})
        return message.content or ""


_NOT_CHAT_COMPLETION = (
    "{agent}: the endpoint at OPENAI_BASE_URL did not answer with a chat.completion; "
    "point OPENAI_BASE_URL at the server's OpenAI-compatible /v1 root."
)


def _describe(err: Exception) -> str:
    return describe_validation_error(err) if isinstance(err, ValidationError) else str(err)


def _error_text(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        return str(body.get("message") or body)[:300]
    return str(err.message)[:300]
