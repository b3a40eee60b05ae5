"""The signature compiler (pydantic, tidied) judged on the demo roster's 44 tools.

``roster_schemas_hand.json`` is what the hand-written compiler that pydantic replaced produced
for the same functions (``null`` where it could not: nested models). pydantic's schema must keep
every fact the hand compiler stated (types, items, enums, descriptions, required) and may add
only what it knows better (defaults, the value type of a dict, nested models).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field

from tests.support.roster_signatures import FUNCTIONS
from toolret.adapters._registry import ToolRegistry, schema_from_signature
from toolret.errors import CatalogSourceError

HAND: dict[str, dict[str, Any] | None] = json.loads(
    (Path(__file__).parent / "support" / "roster_schemas_hand.json").read_text()
)
ADDED_BY_PYDANTIC = {"default", "additionalProperties", "$defs"}


def _keywords(node: Any, *, named: bool = False) -> set[str]:
    """Every keyword used in a schema (the keys of ``properties``/``$defs`` are names)."""
    if isinstance(node, list):
        return set().union(*(_keywords(item) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = set() if named else set(node)
    for key, value in node.items():
        found |= _keywords(value, named=key in ("properties", "$defs") and not named)
    return found


def _keeps(hand: Any, compiled: Any, path: str) -> None:
    """Every key the hand compiler wrote is in pydantic's schema with the same meaning."""
    if isinstance(hand, dict):
        assert isinstance(compiled, dict), path
        for key, value in hand.items():
            assert key in compiled, f"{path}: pydantic lost {key!r}"
            _keeps(value, compiled[key], f"{path}.{key}")
        return
    assert hand == compiled, f"{path}: hand {hand!r}, pydantic {compiled!r}"


def test_the_hand_compilers_reference_covers_the_roster() -> None:
    assert list(HAND) == list(FUNCTIONS)
    assert len(FUNCTIONS) == 44
    assert sorted(name for name, schema in HAND.items() if schema is None) == [
        "bulk_delete_records",
        "bulk_update_records",
        "count_records",
        "create_view",
        "export_records",
        "find_records",
        "update_view",
    ]


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_pydantic_keeps_everything_the_hand_compiler_said(name: str) -> None:
    schema = schema_from_signature(FUNCTIONS[name])
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "title" not in _keywords(schema)
    hand = HAND[name]
    if hand is None:
        return
    _keeps(hand, schema, name)
    assert list(schema["properties"]) == list(hand["properties"])
    assert schema.get("required") == hand.get("required")
    added = _keywords(schema) - _keywords(hand)
    assert added <= ADDED_BY_PYDANTIC, f"{name}: unexpected keywords {added}"


def test_pydantic_shows_defaults_and_compiles_nested_models() -> None:
    schema = schema_from_signature(FUNCTIONS["find_records"])
    properties = schema["properties"]
    assert properties["limit"] == {"type": "integer", "default": 20}
    assert schema["required"] == ["object_name"]
    # An optional list of nested models: no null branch, and the model under $defs.
    assert properties["where"] == {"type": "array", "items": {"$ref": "#/$defs/Condition"}}
    condition = schema["$defs"]["Condition"]
    assert condition["description"] == "One filter condition on a field."
    assert condition["properties"]["operator"]["default"] == "eq"
    validator = jsonschema.Draft202012Validator(schema)
    good = {"object_name": "deals", "where": [{"field": "amount", "operator": "gt", "value": 5}]}
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "where": [{"field": "amount", "operator": "bogus"}]})
    assert not validator.is_valid({"where": []})


def test_optional_with_a_default_other_than_none_keeps_its_null() -> None:
    def plan(level: int | None = 3, mode: Literal["a", "b"] | None = None) -> None:
        """Plan."""

    properties = schema_from_signature(plan)["properties"]
    assert properties["level"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "default": 3,
    }
    assert properties["mode"] == {"type": "string", "enum": ["a", "b"]}


def test_parameter_names_that_pydantic_models_use_themselves() -> None:
    def define(
        schema: Annotated[str, "a schema name"],
        json: bool = False,
        model_config: dict[str, int] | None = None,
        title: str = "",
    ) -> None:
        """Define."""

    compiled = schema_from_signature(define)
    assert compiled == {
        "type": "object",
        "properties": {
            "schema": {"type": "string", "description": "a schema name"},
            "json": {"type": "boolean", "default": False},
            "model_config": {"type": "object", "additionalProperties": {"type": "integer"}},
            "title": {"type": "string", "default": ""},
        },
        "required": ["schema"],
    }


def test_a_pydantic_field_describes_a_parameter_too() -> None:
    def rate(stars: Annotated[int, Field(ge=1, le=5, description="one to five")]) -> None:
        """Rate."""

    assert schema_from_signature(rate)["properties"]["stars"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 5,
        "description": "one to five",
    }


def test_model_and_dataclass_tools_are_tidied_the_same_way() -> None:
    registry = ToolRegistry()

    @registry.tool_def(domain="records")
    class Archive(BaseModel):
        """Archive one record so it leaves lists and views but stays searchable."""

        record_id: str
        reason: str | None = None

    @registry.tool_def(domain="records")
    @dataclass
    class Restore:
        """Bring an archived record back into lists and views, as it was before."""

        record_id: str
        title: str | None = None

    assert registry["Archive"].input_schema == {
        "type": "object",
        "description": "Archive one record so it leaves lists and views but stays searchable.",
        "properties": {"record_id": {"type": "string"}, "reason": {"type": "string"}},
        "required": ["record_id"],
    }
    assert registry["Restore"].input_schema == {
        "type": "object",
        "properties": {"record_id": {"type": "string"}, "title": {"type": "string"}},
        "required": ["record_id"],
    }


class Money:
    """A type pydantic has no schema for."""


def test_a_type_without_a_schema_names_the_parameter() -> None:
    def charge(note: str, amount: Money) -> None:
        """Charge."""

    with pytest.raises(CatalogSourceError, match=r"charge.*'amount'.*Money.*input_schema"):
        schema_from_signature(charge)
