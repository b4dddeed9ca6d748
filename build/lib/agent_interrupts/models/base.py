"""Base model: snake_case in Python, the spec's camelCase on the wire."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """A model whose JSON uses camelCase aliases and rejects unknown fields."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
    )

    def to_wire(self) -> dict[str, object]:
        """The JSON-compatible camelCase form of this model."""
        return self.model_dump(mode="json", by_alias=True)
