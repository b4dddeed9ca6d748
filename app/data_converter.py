"""The data converter workers use: pydantic's, with decoding failures made workflow failures and
refusals sent as one line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError
from temporalio.api.common.v1 import Payload
from temporalio.api.failure.v1 import Failure
from temporalio.client import Client
from temporalio.contrib.pydantic import PydanticPayloadConverter
from temporalio.converter import DataConverter, DefaultFailureConverter, PayloadConverter

from agent_interrupts.models.errors import Rejected, UndecodablePayload
from agent_interrupts.models.limits import clip


class CheckedPayloadConverter(PydanticPayloadConverter):
    """Pydantic conversion; a payload in an unknown encoding raises ``UndecodablePayload``.

    Workflows list that type in ``failure_exception_types``, so a start input nobody can decode
    fails the run at once with a clear message instead of failing its first task forever.
    """

    def from_payloads(
        self, payloads: Sequence[Payload], type_hints: list[type] | None = None
    ) -> list[Any]:
        try:
            return super().from_payloads(payloads, type_hints)
        except (ValidationError, UndecodablePayload):
            raise
        except Exception as err:
            raise UndecodablePayload(
                f"a payload could not be decoded ({type(err).__name__}: {clip(str(err), 120)}); "
                "send JSON (encoding json/plain)"
            ) from None


class OneLineRejections(DefaultFailureConverter):
    """The SDK's failures, except that a refused update or query (``Rejected``) carries its
    message alone: the Temporal UI and CLI show one line, not the worker's stack trace, and
    not ``retryable: true`` (the same input is refused again)."""

    def to_failure(
        self, exception: BaseException, payload_converter: PayloadConverter, failure: Failure
    ) -> None:
        super().to_failure(exception, payload_converter, failure)
        if isinstance(exception, Rejected):
            failure.stack_trace = ""
            failure.application_failure_info.non_retryable = True


DATA_CONVERTER = DataConverter(
    payload_converter_class=CheckedPayloadConverter, failure_converter_class=OneLineRejections
)


def with_checked_converter(client: Client) -> Client:
    """The same connection, converting with ``DATA_CONVERTER``."""
    config = client.config()
    config["data_converter"] = DATA_CONVERTER
    return Client(**config)
