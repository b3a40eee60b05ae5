"""A tool, and the documents it is retrieved by.

A tool's description document is written from its fields by a template (``render``): which of
name, description, keywords and category it holds, in which order, how they are joined. The
best template depends on the embedding model, so each model's ``RetrievalProfile`` names its
own (``toolret._profile``); ``DEFAULT_TEMPLATE`` is the one measured best for the bundled model.
Each example request is a document of its own. Every document is content-addressed: its key is
the SHA-256 of its embedding role and text, so a vector is reused for as long as the text it was
computed from is unchanged, and a new template re-embeds the descriptions (and only them).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "DEFAULT_TEMPLATE",
    "LEGACY_TEMPLATE",
    "TEMPLATE_FIELDS",
    "AgentSource",
    "Document",
    "Role",
    "Tool",
    "check_template",
    "parameter_text",
    "readable_identifier",
    "render",
]

Role = Literal["document", "query"]
"""How a text is embedded: as a document (E5 ``passage:``) or as a query (E5 ``query:``)."""

DEFAULT_TEMPLATE = "{keywords}\n{description}\n{parameters}"
"""Keywords, the description, then the parameters; no name. Measured best for the bundled model
on the public dev benchmarks and the roster's tuning half (``toolret recall DIR --study
template|documents``): the name, as words or raw, cost Persian 7-10 points of recall@12 and
English no gain; the parameters (a tool someone else wrote often says more in its
``input_schema`` than in its description) raised a third-party fleet's recall@12 by 6 points and
change no document of a tool without them. See docs/decisions.md."""
LEGACY_TEMPLATE = "{name}\n{description}\n{keywords}\n{category}"
"""The template toolret used before templates were measured; Gemini keeps it (unmeasured)."""
TEMPLATE_FIELDS = ("name", "raw_name", "description", "keywords", "category", "parameters")
"""What a template can hold: ``{name}`` is the name as words (``create record``), ``{raw_name}``
the identifier itself; ``{keywords}`` are joined by commas; ``{parameters}`` is
``parameter_text``."""

_FIELD = re.compile(r"\{(\w+)\}")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[\W_]+")


def readable_identifier(name: str) -> str:
    """Turn an identifier into words: ``createRecord`` becomes ``create record``.

    So do ``create_record`` and ``create-record``; ``github__create_issue`` becomes
    ``github create issue`` and ``HTTPServer`` becomes ``http server``.
    """
    spaced = _CAMEL_BOUNDARY.sub(" ", name)
    return " ".join(part for part in _SEPARATORS.split(spaced) if part).lower()


def parameter_text(tool: Tool) -> str:
    """The top-level parameters of ``tool``'s ``input_schema`` in words, each with its
    description: ``profile name, query (text to search for)``. Empty without parameters."""
    properties = (tool.input_schema or {}).get("properties")
    if not isinstance(properties, Mapping):
        return ""
    parts = []
    for key, spec in properties.items():
        words = readable_identifier(str(key))
        described = spec.get("description") if isinstance(spec, Mapping) else None
        described = described.strip() if isinstance(described, str) else ""
        parts.append(f"{words} ({described})" if described else words)
    return ", ".join(part for part in parts if part)


def check_template(template: str) -> str:
    """Return ``template`` if it names only ``TEMPLATE_FIELDS`` and holds the description."""
    unknown = sorted(set(_FIELD.findall(template)) - set(TEMPLATE_FIELDS))
    if unknown:
        raise ValueError(
            f"document template field {{{unknown[0]}}} is unknown; use {TEMPLATE_FIELDS}"
        )
    if "{description}" not in template:
        raise ValueError("a document template must hold {description}")
    return template


def render(template: str, tool: Tool) -> str:
    """A tool's description document under ``template`` (e.g. ``"{name}: {description}"``).

    Fields are replaced line by line; a line whose fields are all empty (a tool with no
    keywords, say) is left out rather than written blank. A tool with neither description nor
    keywords (a third-party tool's empty description), under a template without its name, has
    its name in words for a description, so it is still retrieved by what it is called.
    """
    keywords = ", ".join(tool.keywords)
    values = {
        "name": readable_identifier(tool.name),
        "raw_name": tool.name,
        "description": tool.description.strip(),
        "keywords": keywords,
        "category": tool.category,
        "parameters": parameter_text(tool) if "{parameters}" in template else "",
    }
    named = "{name}" in template or "{raw_name}" in template
    if not values["description"] and not keywords and not named:
        values["description"] = values["name"]
    lines = []
    for line in template.split("\n"):
        fields = _FIELD.findall(line)
        if fields and not any(values[name] for name in fields):
            continue
        lines.append(_FIELD.sub(lambda match: values[match.group(1)], line))
    text = "\n".join(lines)
    return text if text.strip() else values["name"]


@dataclass(frozen=True)
class Document:
    """One text a tool is retrieved by, and how it is embedded."""

    text: str
    role: Role = "document"
    kind: Literal["description", "example"] = "description"

    @property
    def key(self) -> str:
        """The content address: hex SHA-256 of the role and the text."""
        return hashlib.sha256(f"{self.role}\x00{self.text}".encode()).hexdigest()


@dataclass(frozen=True)
class AgentSource:
    """The user's own agent an integration read a tool from: ``framework`` (``PydanticAI``) and
    ``catalog_function``, the call that builds the same catalog for ``toolret.lint_catalog``."""

    framework: str
    catalog_function: str


@dataclass(frozen=True)
class Tool:
    """A tool an agent can call, as toolret ranks it.

    ``definition`` keeps the provider's original definition (OpenAI/Anthropic JSON, an MCP tool,
    the decorated function) so the caller can bind exactly what it registered. ``third_party``
    marks a tool whose text the application did not write (the MCP and JSON adapters set it).
    """

    name: str
    description: str
    keywords: tuple[str, ...] = ()
    category: str = ""
    domain: str = ""
    core: bool = False
    input_schema: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)
    agents: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    definition: Any = field(default=None, compare=False, hash=False, repr=False)
    third_party: bool = field(default=False, compare=False, hash=False)
    """Defined outside the application (an MCP server, provider tool JSON): the application
    cannot edit it, so a thin description or an input schema model providers refuse is a
    ``Catalog.warnings`` entry, not an error."""
    read_from: AgentSource | None = field(default=None, compare=False, hash=False)
    """Set by an integration that read the tool from the user's own agent: the user's tool, not
    a third party's, yet its flaws are warnings too, as the hook reading it must not fail a turn."""

    @property
    def kept_when_flawed(self) -> bool:
        """A thin description or a refused input schema is a warning, not an error."""
        return self.third_party or self.read_from is not None

    @property
    def retrieval_text(self) -> str:
        """The description document under ``DEFAULT_TEMPLATE``: keywords, description,
        parameters."""
        return render(DEFAULT_TEMPLATE, self)

    def documents(
        self, example_role: Role = "query", template: str = DEFAULT_TEMPLATE
    ) -> tuple[Document, ...]:
        """The description document (written by ``template``), then one per example request."""
        description = Document(render(template, self), "document", "description")
        examples = (Document(text.strip(), example_role, "example") for text in self.examples)
        return (description, *examples)
