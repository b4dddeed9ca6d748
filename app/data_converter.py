"""The data converter workers use: pydantic's, with decoding failures made workflow failures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.contrib.pydantic import PydanticPayloadConverter
from temporalio.converter import DataConverter

from models.errors import UndecodablePayload
from models.limits import clip


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


DATA_CONVERTER = DataConverter(payload_converter_class=CheckedPayloadConverter)


def with_checked_converter(client: Client) -> Client:
    """The same connection, converting with ``DATA_CONVERTER``."""
    config = client.config()
    config["data_converter"] = DATA_CONVERTER
    return Client(**config)
