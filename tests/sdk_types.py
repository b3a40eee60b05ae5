"""Check a dict against an SDK's request type (a ``TypedDict``): pydantic validates the values,
and the keys must be ones the type declares, with every required one present."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter


def conforms(value: Any, typed_dict: Any) -> None:
    """Raise unless ``value`` is a valid ``typed_dict`` with no undeclared keys."""
    TypeAdapter(typed_dict).validate_python(value)
    declared = typed_dict.__required_keys__ | typed_dict.__optional_keys__
    assert isinstance(value, dict)
    assert set(value) <= declared, f"{sorted(set(value) - declared)} not in {typed_dict.__name__}"
    assert typed_dict.__required_keys__ <= set(value), f"missing keys of {typed_dict.__name__}"
