"""Whether a tool's input schema is one the model providers accept.

Three checks, the first problem found reported with its JSON pointer (RFC 6901) into the schema:

- **The JSON Schema metaschema** (``jsonschema-rs``): ``"type": "strng"``, ``properties`` given
  as a list, ``required`` that is not a list of distinct strings. The draft is the one the
  schema names in ``$schema``, else 2020-12; no metaschema is ever fetched over the network (a
  ``$schema`` no draft is known by is checked as 2020-12).
- **The root is an object schema**: a root ``type`` other than ``"object"`` is refused by
  OpenAI, Anthropic and MCP alike.
- **``required`` names only properties the same schema defines** (wherever ``properties`` and
  ``required`` sit side by side). This is valid JSON Schema, but Gemini refuses the whole
  request (``required[0]: property is not defined``), whichever tool of it is at fault.

Who wrote the tool decides what a problem costs (``toolret._catalog``): an error for the
application's own tools, a warning for someone else's. jsonschema-rs checks a schema in
microseconds, where python-jsonschema's 2020-12 metaschema takes milliseconds (a 527-tool fleet
in seconds): docs/decisions.md, "Checking input schemas".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = ["SchemaProblem", "json_pointer", "schema_problem"]

DATA_KEYWORDS = frozenset({"const", "default", "enum", "example", "examples"})
"""Keywords whose values are data, not schemas: never read as schemas."""
TYPES = "array, boolean, integer, null, number, object or string"


@dataclass(frozen=True)
class SchemaProblem:
    """What is wrong with an input schema, and where (a JSON pointer; ``""`` is the root)."""

    pointer: str
    message: str


def schema_problem(schema: Mapping[str, Any]) -> SchemaProblem | None:
    """The first problem a model provider would refuse ``schema`` for, or None."""
    import jsonschema_rs

    plain = schema if isinstance(schema, dict) else _plain(schema)
    if not isinstance(plain, dict):
        return SchemaProblem("", "an input schema is a JSON object, and this is not one")
    try:
        problem = _metaschema_problem(plain)
    except ValueError as error:  # a mapping or a tuple inside: checked again as JSON types
        if isinstance(error, jsonschema_rs.ValidationError):
            raise
        plain = _plain(plain)
        problem = _metaschema_problem(plain)
    if problem is not None:
        return problem
    kind = plain.get("type", "object")
    if kind != "object":
        return SchemaProblem(
            "/type",
            f"the root has type {kind!r}: the arguments of a call are an object, and OpenAI, "
            "Anthropic and MCP refuse any root but type object",
        )
    undefined = _undefined_required(plain)
    if undefined is not None:
        name = undefined.pop()
        return SchemaProblem(
            json_pointer(undefined),
            f"required names {name!r}, which its properties do not define: valid JSON Schema, "
            "but Gemini refuses every request that holds the tool (property is not defined)",
        )
    return None


def json_pointer(path: Sequence[str | int]) -> str:
    """The RFC 6901 pointer of ``path`` (``~`` and ``/`` escaped)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _metaschema_problem(schema: dict[str, Any]) -> SchemaProblem | None:
    import jsonschema_rs

    try:
        jsonschema_rs.meta.validate(schema, registry=_offline())
    except jsonschema_rs.ReferencingError:  # a $schema no draft is known by: check as 2020-12
        return _metaschema_problem({k: v for k, v in schema.items() if k != "$schema"})
    except jsonschema_rs.ValidationError as error:
        pointer = json_pointer(error.instance_path)
        detail = error.message
        if error.instance_path and error.instance_path[-1] == "type":
            detail += f" (a type is {TYPES}, or a list of them)"
        return SchemaProblem(
            pointer, f"not valid JSON Schema: {detail}; model providers refuse such a tool"
        )
    return None


@cache
def _offline() -> Any:
    """A registry that knows the drafts' metaschemas and fetches nothing."""
    import jsonschema_rs

    def refuse(uri: str) -> Any:
        raise LookupError(f"{uri} is not fetched")

    return jsonschema_rs.Registry([], retriever=refuse)


def _undefined_required(node: Any) -> list[Any] | None:
    """The path to the first ``required`` entry its schema's ``properties`` does not define,
    then that name; None when there is none. The path is built only for the one found."""
    if isinstance(node, dict):
        properties, required = node.get("properties"), node.get("required")
        if isinstance(properties, dict) and isinstance(required, list):
            for index, name in enumerate(required):
                if name not in properties:
                    return ["required", index, name]
        for key, value in node.items():
            if key not in DATA_KEYWORDS and isinstance(value, (dict, list)):
                found = _undefined_required(value)
                if found is not None:
                    return [key, *found]
    elif isinstance(node, list):
        for index, value in enumerate(node):
            if isinstance(value, (dict, list)):
                found = _undefined_required(value)
                if found is not None:
                    return [index, *found]
    return None


def _plain(value: Any) -> Any:
    """``value`` as JSON types the validator takes: mappings as dicts, tuples as lists."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
