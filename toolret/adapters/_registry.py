"""The ``@tool_def`` decorator, and the registry that collects tools per agent.

    @tool_def(agents="units", domain="records", keywords=("new row",), examples=("أضف عميلا",))
    async def create_record(object_name: str, values: dict[str, str]) -> str:
        '''Create a record in an object, with values for its fields.'''

The name defaults to the function's or class's name, the description to its docstring. The input
schema is pydantic's, tidied (``tidy_schema``): of a function's signature (any type pydantic
validates, nested models included; ``Annotated[T, "what it is"]`` describes a parameter), of a
pydantic model class, or of a dataclass's fields. Otherwise pass ``input_schema``.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, Union

from toolret._catalog import MIN_DESCRIPTION_LENGTH, Catalog
from toolret._tool import Tool
from toolret.errors import CatalogSourceError, DuplicateToolError

__all__ = ["ToolRegistry", "default_registry", "schema_from_signature", "tool_def"]

T = TypeVar("T", bound=Callable[..., Any])
Strings = str | Iterable[str]
"""One string, or several."""


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
        domain_rank: Sequence[str] = (),
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

    Compiled by pydantic: any type pydantic validates has a schema (nested models go under
    ``$defs``), a parameter's default is shown, and ``Annotated[T, "what it is"]`` (or a
    pydantic ``Field``) describes it. Tidied for a model's prompt: no ``title`` keys, and an
    optional parameter whose default is ``None`` is shown as its type, not as ``T or null``.
    Raises ``CatalogSourceError`` naming the function when a type has no schema.
    """
    import pydantic  # here, not at the top: importing the adapters stays cheap

    where = getattr(function, "__qualname__", repr(function))
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as error:
        raise CatalogSourceError(
            f"{where}: cannot resolve its type hints ({error}); pass input_schema=... to tool_def"
        ) from error
    fields: dict[str, Any] = {}
    for index, parameter in enumerate(inspect.signature(function).parameters.values()):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if index == 0 and parameter.name in ("self", "cls"):
            continue
        hint = hints.get(parameter.name, Any)
        default: Any = ... if parameter.default is parameter.empty else parameter.default
        # Fields are named by position and aliased to the parameter: a parameter may be called
        # ``schema`` or ``json``, which would shadow BaseModel's own attributes. Without a note,
        # no description is passed, so a pydantic Field inside Annotated keeps its own.
        note = _note(hint)
        field = (
            pydantic.Field(default, alias=parameter.name)
            if note is None
            else pydantic.Field(default, alias=parameter.name, description=note)
        )
        fields[f"p{len(fields)}"] = (hint, field)
    try:
        model = pydantic.create_model(f"{where}.arguments", **fields)
        schema = model.model_json_schema(by_alias=True)
    except pydantic.PydanticUserError as error:
        culprit = next(
            (
                field.alias
                for _, field in fields.values()
                if not _has_schema(hints.get(field.alias))
            ),
            None,
        )
        what = (
            f"parameter {culprit!r} of type {hints.get(culprit)!r}" if culprit else "its parameters"
        )
        raise CatalogSourceError(
            f"{where}: {what} has no JSON Schema ({type(error).__name__}); "
            "pass input_schema=... to tool_def"
        ) from error
    return tidy_schema(schema)


def _has_schema(hint: Any) -> bool:
    import pydantic

    try:
        pydantic.TypeAdapter(Any if hint is None else hint).json_schema()
    except pydantic.PydanticUserError:
        return False
    return True


def tidy_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """pydantic's JSON Schema without what costs a model tokens and tells it nothing.

    ``title`` keys (the field name again, title-cased) go; an optional property whose default is
    ``None`` becomes its type alone, since leaving it out means the same as sending null.
    """
    tidied: dict[str, Any] = _untitled(schema)
    for holder in [tidied, *tidied.get("$defs", {}).values()]:
        for name, prop in holder.get("properties", {}).items():
            holder["properties"][name] = _not_null(prop)
    return tidied


def _note(hint: Any) -> str | None:
    """The first string in ``Annotated[T, "..."]``, also as a member of ``Optional``."""
    candidates = [hint]
    if typing.get_origin(hint) in (Union, types.UnionType):
        candidates += list(typing.get_args(hint))
    for candidate in candidates:
        if typing.get_origin(candidate) is typing.Annotated:
            notes = [note for note in typing.get_args(candidate)[1:] if isinstance(note, str)]
            if notes:
                return notes[0]
    return None


def _untitled(node: Any, *, named: bool = False) -> Any:
    """``node`` without ``title`` keys; ``named`` marks a map of names to schemas
    (``properties``, ``$defs``), whose keys are names, not keywords."""
    if isinstance(node, list):
        return [_untitled(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    return {
        key: _untitled(value, named=key in ("properties", "$defs") and not named)
        for key, value in node.items()
        if named or key != "title"
    }


def _not_null(prop: dict[str, Any]) -> dict[str, Any]:
    members = prop.get("anyOf")
    if prop.get("default", ...) is not None or not isinstance(members, list):
        return prop
    kept = [member for member in members if member != {"type": "null"}]
    if len(kept) != len(members) - 1:
        return prop
    rest = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
    return {**kept[0], **rest} if len(kept) == 1 else {**rest, "anyOf": kept}


def _schema_of(obj: Callable[..., Any]) -> Mapping[str, Any] | None:
    if not inspect.isclass(obj):
        return schema_from_signature(obj)
    model_schema = getattr(obj, "model_json_schema", None)
    if callable(model_schema):
        return tidy_schema(model_schema())
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
