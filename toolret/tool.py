"""A tool, and the documents it is retrieved by.

A tool's retrieval document is its name (made readable), description, keywords and category;
the description carries most of the signal. Each example request is a document of its own.
Every document is content-addressed: its key is the SHA-256 of its embedding role and text, so a
vector is reused for as long as the text it was computed from is unchanged.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Document", "Role", "Tool", "readable_identifier"]

Role = Literal["document", "query"]
"""How a text is embedded: as a document (E5 ``passage:``) or as a query (E5 ``query:``)."""

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[\W_]+")


def readable_identifier(name: str) -> str:
    """Turn an identifier into words: ``createRecord`` becomes ``create record``.

    So do ``create_record`` and ``create-record``; ``github__create_issue`` becomes
    ``github create issue`` and ``HTTPServer`` becomes ``http server``.
    """
    spaced = _CAMEL_BOUNDARY.sub(" ", name)
    return " ".join(part for part in _SEPARATORS.split(spaced) if part).lower()


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
    cannot edit its description, so a thin one is a ``Catalog.warnings`` entry, not an error."""

    @property
    def retrieval_text(self) -> str:
        """Name (readable) + description + keywords + category, one per line."""
        parts = [readable_identifier(self.name), self.description.strip()]
        if self.keywords:
            parts.append(", ".join(self.keywords))
        if self.category:
            parts.append(self.category)
        return "\n".join(parts)

    def documents(self, example_role: Role = "document") -> tuple[Document, ...]:
        """The description document, then one document per example request."""
        description = Document(self.retrieval_text, "document", "description")
        examples = (Document(text.strip(), example_role, "example") for text in self.examples)
        return (description, *examples)
