"""Instances of a strict JSON schema, drawn by Hypothesis: what a grammar-constrained decoder
may write for it (objects with every property, ``anyOf``, ``$ref``, enums, bounded strings and
arrays, numbers within their bounds)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def instances(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values ``schema`` admits (the subset of JSON Schema the strict output schemas use)."""
    return _strategy(schema, schema)


def _strategy(node: dict[str, Any], root: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "$ref" in node:
        target: Any = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return st.deferred(lambda: _strategy(target, root))
    if "anyOf" in node:
        return st.one_of([_strategy(branch, root) for branch in node["anyOf"]])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "const" in node:
        return st.just(node["const"])
    kind = node.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**node, "type": k}, root) for k in kind])
    if kind == "object":
        properties = node.get("properties", {})
        unknown = set(node.get("required", [])) - set(properties)
        if unknown or node.get("additionalProperties", True) is not False:
            raise ValueError(f"not a strict object: {node}")
        return st.fixed_dictionaries({k: _strategy(v, root) for k, v in properties.items()})
    if kind == "array":
        return st.lists(
            _strategy(node.get("items", {}), root),
            min_size=node.get("minItems", 0),
            max_size=max(min(node["maxItems"], 4), node.get("minItems", 0)),
        )
    if kind == "string":
        longest = node["maxLength"]  # any text up to it; the bound itself in a cheap form
        return st.text(max_size=min(longest, 24)) | st.just("\u00e9" * longest)
    if kind == "integer":
        return st.integers(node.get("minimum"), node.get("maximum"))
    if kind == "number":
        return st.floats(node.get("minimum"), node.get("maximum"), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    raise ValueError(f"no strategy for {node}")
