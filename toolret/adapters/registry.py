"""The ``@tool_def`` decorator, and the registry that collects tools per agent.

    @tool_def(agents="units", domain="records", keywords=("new row",), examples=("أضف عميلا",))
    async def create_record(object_name: str, values: dict[str, str]) -> str:
        '''Create a record in an object, with values for its fields.'''

The name defaults to the function's or class's name, the description to its docstring. A
function's input schema comes from its signature when its types are simple (str, int, float,
bool, list, dict, Optional, Literal, ``Annotated[T, "what it is"]``); a class's from pydantic's
``model_json_schema()`` or a dataclass's fields. Otherwise pass ``input_schema``.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, TypeVar, Union

from toolret.catalog import DEFAULT_DOMAIN_RANK, MIN_DESCRIPTION_LENGTH, Catalog
from toolret.errors import CatalogSourceError, DuplicateToolError
from toolret.tool import Tool

__all__ = ["ToolRegistry", "default_registry", "schema_from_signature", "tool_def"]

T = TypeVar("T", bound=Callable[..., Any])
Strings = str | Iterable[str]
"""One string, or several."""

_SIMPLE: Mapping[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARRAYS = (list, tuple, set, frozenset, Sequence, Iterable)


class ToolRegistry:
    """Tools collected by ``@tool_def``, in registration order, rostered per agent."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._places: dict[str, tuple[str, str]] = {}

    def tool_def(
        self,
        *,
        agents: Strings = (),
        category: str = "",
        keywords: Strings = (),
        core: bool = False,
        domain: str = "",
        examples: Strings = (),
        name: str | None = None,
        description: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
    ) -> Callable[[T], T]:
        """Register the decorated function or class as a tool; it is returned unchanged."""

        def register(obj: T) -> T:
            tool = Tool(
                name=name or str(getattr(obj, "__name__", "")),
                description=description or inspect.cleandoc(obj.__doc__ or ""),
                keywords=_strings(keywords),
                category=category,
                domain=domain,
                core=core,
                input_schema=input_schema if input_schema is not None else _schema_of(obj),
                agents=_strings(agents),
                examples=_strings(examples),
                definition=obj,
            )
            self.add(tool, place=_place(obj))
            return obj

        return register

    def add(self, tool: Tool, *, place: tuple[str, str] | None = None) -> None:
        """Register a tool. ``place`` is (identity, description) of where it is defined.

        The same place registering again (a reloaded module) replaces the tool; another place
        with the same name raises ``DuplicateToolError`` naming both.
        """
        where = place or (f"tool {tool.name!r}#{len(self._tools)}", "a Tool added directly")
        known = self._places.get(tool.name)
        if known is not None and known[0] != where[0]:
            raise DuplicateToolError(
                f"tool {tool.name!r} is defined twice: at {known[1]} and at {where[1]}; "
                "rename one (tool_def(name=...))",
                tool=tool.name,
            )
        self._tools[tool.name] = tool
        self._places[tool.name] = where

    @property
    def tools(self) -> tuple[Tool, ...]:
        """Every registered tool, in registration order."""
        return tuple(self._tools.values())

    @property
    def agents(self) -> list[str]:
        """Every agent some tool names, sorted."""
        return sorted({agent for tool in self._tools.values() for agent in tool.agents})

    def catalog(
        self,
        agent: str | None = None,
        *,
        core: Iterable[str] = (),
        domain_rank: Sequence[str] = DEFAULT_DOMAIN_RANK,
        min_description_length: int = MIN_DESCRIPTION_LENGTH,
    ) -> Catalog:
        """The catalog of ``agent``'s tools (tools naming no agent belong to every agent).

        ``agent=None`` takes every tool. An agent no tool names raises ``CatalogSourceError``
        (a typo would otherwise yield a catalog of only the shared tools).
        """
        known = self.agents
        if agent is not None and known and agent not in known:
            raise CatalogSourceError(f"no tool names agent {agent!r}; known agents: {known}")
        tools = [
            t for t in self._tools.values() if agent is None or not t.agents or agent in t.agents
        ]
        return Catalog(
            tools, core=core, domain_rank=domain_rank, min_description_length=min_description_length
        )

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]


default_registry = ToolRegistry()
"""The registry ``tool_def`` registers into unless given another."""


def tool_def(
    *,
    agents: Strings = (),
    category: str = "",
    keywords: Strings = (),
    core: bool = False,
    domain: str = "",
    examples: Strings = (),
    name: str | None = None,
    description: str | None = None,
    input_schema: Mapping[str, Any] | None = None,
    registry: ToolRegistry | None = None,
) -> Callable[[T], T]:
    """Declare a function or class as a tool of ``agents`` (default: every agent).

    ``examples`` are requests users make for this tool, in any language; ``core`` tools are
    always bound. Registers into ``registry`` (default: ``default_registry``).
    """
    target = default_registry if registry is None else registry
    return target.tool_def(
        agents=agents,
        category=category,
        keywords=keywords,
        core=core,
        domain=domain,
        examples=examples,
        name=name,
        description=description,
        input_schema=input_schema,
    )


def schema_from_signature(function: Callable[..., Any]) -> dict[str, Any]:
    """A JSON Schema object for a function's parameters (``*args``/``**kwargs`` left out).

    Raises ``CatalogSourceError`` naming the parameter when a type has no simple schema.
    """
    where = getattr(function, "__qualname__", repr(function))
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as error:
        raise CatalogSourceError(
            f"{where}: cannot resolve its type hints ({error}); pass input_schema=... to tool_def"
        ) from error
    properties: dict[str, Any] = {}
    required: list[str] = []
    for index, parameter in enumerate(inspect.signature(function).parameters.values()):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if index == 0 and parameter.name in ("self", "cls"):
            continue
        hint = hints.get(parameter.name)
        properties[parameter.name] = {} if hint is None else _schema(hint, where, parameter.name)
        if parameter.default is parameter.empty:
            required.append(parameter.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _schema(hint: Any, where: str, parameter: str) -> dict[str, Any]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        schema = _schema(args[0], where, parameter)
        notes = [note for note in args[1:] if isinstance(note, str)]
        return {**schema, "description": notes[0]} if notes else schema
    if hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    if hint is Any:
        return {}
    if origin in (Union, types.UnionType):
        members = [_schema(arg, where, parameter) for arg in args if arg is not type(None)]
        return members[0] if len(members) == 1 else {"anyOf": members}
    if origin is Literal:
        kinds = {_SIMPLE.get(type(value)) for value in args}
        kind = kinds.pop() if len(kinds) == 1 else None
        return {"type": kind, "enum": list(args)} if kind else {"enum": list(args)}
    if hint in _ARRAYS or origin in _ARRAYS:
        item = args[0] if args and (origin is not tuple or args[-1] is Ellipsis) else None
        return (
            {"type": "array", "items": _schema(item, where, parameter)}
            if item
            else {"type": "array"}
        )
    if hint in (dict, Mapping) or origin in (dict, Mapping):
        return {"type": "object"}
    raise CatalogSourceError(
        f"{where}: parameter {parameter!r} has type {hint!r}, which has no simple JSON Schema; "
        "pass input_schema=... to tool_def"
    )


def _schema_of(obj: Callable[..., Any]) -> Mapping[str, Any] | None:
    if not inspect.isclass(obj):
        return schema_from_signature(obj)
    model_schema = getattr(obj, "model_json_schema", None)
    if callable(model_schema):
        return dict(model_schema())
    if dataclasses.is_dataclass(obj):
        return schema_from_signature(obj)
    return None


def _strings(value: Strings) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _place(obj: Callable[..., Any]) -> tuple[str, str]:
    identity = f"{obj.__module__}.{obj.__qualname__}"
    code = getattr(obj, "__code__", None)
    if code is not None:
        return identity, f"{identity} ({code.co_filename}:{code.co_firstlineno})"
    try:
        return identity, f"{identity} ({inspect.getsourcefile(obj)})"
    except TypeError:
        return identity, identity
