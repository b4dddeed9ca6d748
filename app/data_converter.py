"""The one data converter of every client and worker (``data_converter``): pydantic's, with
decoding failures made workflow failures, refusals sent as one line, and, when
``AGENTS_ENCRYPTION_KEYS`` is set, every payload and failure message encrypted (``app.codec``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ValidationError
from temporalio.api.common.v1 import Payload
from temporalio.api.failure.v1 import Failure
from temporalio.client import Client
from temporalio.contrib.pydantic import PydanticPayloadConverter
from temporalio.converter import DataConverter, DefaultFailureConverter, PayloadConverter
from temporalio.exceptions import FailureError

from agent_interrupts.app.codec import ENCODING_KEY, REFUSED_PLAINTEXT, EncryptionCodec
from agent_interrupts.app.encryption_keys import PLAINTEXT_SETTING, KeyRing
from agent_interrupts.models.errors import PayloadKeyError, Rejected, UndecodablePayload
from agent_interrupts.models.limits import clip


class CheckedPayloadConverter(PydanticPayloadConverter):
    """Pydantic conversion; a payload in an unknown encoding raises ``UndecodablePayload``.

    Workflows list that type in ``failure_exception_types``, so a start input nobody can decode
    fails the run at once with a clear message instead of failing its first task forever.
    """

    def from_payloads(
        self, payloads: Sequence[Payload], type_hints: list[type] | None = None
    ) -> list[Any]:
        if any(p.metadata.get(ENCODING_KEY) == REFUSED_PLAINTEXT for p in payloads):
            raise UndecodablePayload(
                f"an unencrypted payload is refused here ({PLAINTEXT_SETTING}=refuse): send it "
                "through a client with the run's keys, or the codec server's /encode"
            )
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
            if failure.HasField("encoded_attributes"):  # sealed: the trace went in there
                failure.encoded_attributes.CopyFrom(
                    payload_converter.to_payloads([{"message": str(exception), "stack_trace": ""}])[
                        0
                    ]
                )


class SealedFailures(OneLineRejections):
    """``OneLineRejections`` with each failure's message and stack trace moved into its encoded
    attributes, which the codec encrypts: an error quoting a model's reply leaks nothing."""

    def __init__(self) -> None:
        super().__init__(encode_common_attributes=True)


DATA_CONVERTER = DataConverter(
    payload_converter_class=CheckedPayloadConverter, failure_converter_class=OneLineRejections
)
"""Without encryption (tests and benches that build their payloads by hand)."""


def data_converter(
    ring: KeyRing | Literal["env"] | None = "env", *, worker: bool = False
) -> DataConverter:
    """The converter of every client and worker: ``ring``'s keys (by default the settings',
    ``KeyRing.from_env``; None: no encryption, and an encrypted payload is refused in one line
    naming the setting). ``worker``: a worker's, which refuses unencrypted payloads when the ring
    says so (``AGENTS_ENCRYPTION_PLAINTEXT=refuse``); clients read them."""
    keys = KeyRing.from_env() if ring == "env" else ring
    refuse = worker and keys is not None and not keys.accept_plaintext
    codec = EncryptionCodec(keys, refuse_plaintext=refuse)
    return DataConverter(
        payload_converter_class=CheckedPayloadConverter,
        failure_converter_class=SealedFailures if keys is not None else OneLineRejections,
        payload_codec=codec,
    )


def with_checked_converter(client: Client) -> Client:
    """The same connection, converting with its codec's keys as a worker does
    (``data_converter(worker=True)``)."""
    config = client.config()
    codec = client.data_converter.payload_codec
    ring = codec.ring if isinstance(codec, EncryptionCodec) else None
    config["data_converter"] = data_converter(ring, worker=True)
    return Client(**config)


async def failure_text(converter: DataConverter, failure: Failure) -> str:
    """A failure's message read from a raw history or description: with encryption on, the
    message is in its encrypted attributes, opened with ``converter``'s keys (a client's; without
    them, the one line naming the setting)."""
    if not failure.HasField("encoded_attributes"):
        return failure.message
    opened = Failure()
    opened.CopyFrom(failure)  # the codec opens it in place
    try:
        decoded = await converter.decode_failure(opened)
    except PayloadKeyError as err:
        return str(err)
    return decoded.message if isinstance(decoded, FailureError) else str(decoded)
