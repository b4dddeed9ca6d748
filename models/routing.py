"""The Routing base: route fields carry a Route marker and exactly one of them is set."""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import model_validator

from agent_interrupts.models.agent_types import Route, RouteTarget
from agent_interrupts.models.base import WireModel


class Routing(WireModel):
    """An agent's structured output. Marked fields are routes; unmarked fields are payload."""

    route_fields: ClassVar[dict[str, RouteTarget]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.route_fields = {
            name: marker.target
            for name, info in cls.model_fields.items()
            for marker in info.metadata
            if isinstance(marker, Route)
        }

    @classmethod
    def route_aliases(cls) -> dict[str, RouteTarget]:
        """Route fields by their JSON (camelCase) name."""
        return {cls.model_fields[name].alias or name: t for name, t in cls.route_fields.items()}

    @classmethod
    def route_for(cls, agent: str) -> str | None:
        """The route field (JSON name) that leads to ``agent``, if any."""
        for alias, target in cls.route_aliases().items():
            if target == agent:
                return alias
        return None

    @model_validator(mode="after")
    def _exactly_one_route(self) -> Self:
        chosen = [name for name in self.route_fields if getattr(self, name) is not None]
        if len(chosen) != 1:
            options = ", ".join(sorted(self.route_aliases()))
            found = ", ".join(type(self).model_fields[n].alias or n for n in chosen) or "none"
            raise ValueError(
                f"{type(self).__name__} must set exactly one route field (one of: {options}); "
                f"set: {found}. Put the next step in one route field and leave the others null."
            )
        return self

    def chosen_route(self) -> tuple[str, RouteTarget, Any]:
        """The one non-null route: (JSON field name, target, value)."""
        for name, target in self.route_fields.items():
            value = getattr(self, name)
            if value is not None:
                return type(self).model_fields[name].alias or name, target, value
        raise AssertionError("validated routing has no route")  # pragma: no cover
