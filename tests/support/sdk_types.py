"""Check a value against an SDK's request type, all the way down.

pydantic validates the SDKs' ``Iterable[...]`` fields lazily: ``validate_python`` hands back a
``ValidatorIterator`` that checks nothing until it is consumed, so ``{"content": [42]}`` passes
a ``MessageParam`` unless someone iterates it. ``conforms`` consumes every such iterator, at
every depth, and then compares the value with what pydantic kept: a ``TypedDict`` drops keys it
does not declare, so any key of the value missing from the validated copy is one the type does
not know (free-form fields such as a tool's ``input_schema`` keep every key and pass).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, TypeAdapter


def conforms(value: Any, sdk_type: Any) -> None:
    """Raise unless ``value`` is a valid ``sdk_type`` with no undeclared key at any depth."""
    adapter = TypeAdapter(sdk_type)  # alive while its lazy iterators are consumed
    validated = _forced(adapter.validate_python(value))
    name = getattr(sdk_type, "__name__", str(sdk_type))
    undeclared = list(_undeclared(value, validated, name))
    assert not undeclared, f"keys not in {name}: {undeclared}"


def _forced(value: Any) -> Any:
    """The validated value with every lazy iterator consumed (so validated) into a list."""
    if isinstance(value, Mapping):
        return {key: _forced(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or _lazy(value):
        return [_forced(item) for item in value]
    return value


def _lazy(value: Any) -> bool:
    return isinstance(value, Iterator) or type(value).__name__ == "ValidatorIterator"


def _undeclared(given: Any, kept: Any, path: str) -> Iterator[str]:
    if isinstance(given, BaseModel) or isinstance(kept, BaseModel):
        return  # an SDK response object passed back as is: its own model validated it
    if isinstance(given, Mapping) and isinstance(kept, Mapping):
        for key, item in given.items():
            if key not in kept:
                yield f"{path}.{key}"
            else:
                yield from _undeclared(item, kept[key], f"{path}.{key}")
        return
    if isinstance(given, Sequence) and not isinstance(given, str) and isinstance(kept, list):
        for index, (item, back) in enumerate(zip(given, kept, strict=False)):
            yield from _undeclared(item, back, f"{path}[{index}]")
