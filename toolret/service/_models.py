"""The service's request and response bodies: validation, and the schemas of ``/openapi.json``.

Tool names are the catalog's own: a tool from OpenAI or Anthropic JSON keeps its name, an MCP
tool is ``server__tool`` (``toolret.adapters._mcp``). Unknown fields are refused, so a typo in a
field name is a 422 naming it rather than a setting silently ignored; and types are strict
(``"k": "5"`` is a 422 naming ``k``, not the number 5), as the OpenAPI document says they are.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolret.retrieval._selection import MAX_CAPABILITIES, MAX_DISCOVERED_TOOLS

__all__ = [
    "CATALOG_NAME",
    "CapabilityResult",
    "CatalogRegistration",
    "FeedbackRequest",
    "FeedbackResponse",
    "FindToolsDefinition",
    "FindToolsRequest",
    "FindToolsResponse",
    "FoundTool",
    "Health",
    "Indexing",
    "Readiness",
    "RegistrationResponse",
    "SelectRequest",
    "SelectResponse",
    "ToolWarning",
]

CATALOG_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
"""A registered catalog's name: letters, digits, ``_``, ``.`` and ``-``, at most 128."""

CatalogName = Annotated[
    str,
    Field(pattern=CATALOG_NAME, description="A registered catalog's name", examples=["crm"]),
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SelectRequest(_Body):
    """``POST /v1/select``: the tools to send the model with this message."""

    catalog: CatalogName
    message: str = Field(description="The user's message (any language)")
    resume: bool = Field(False, description="A resumed turn: the full roster, nothing ranked")
    bound: list[str] | None = Field(
        None,
        description="Keep this conversation's tool list cache-stable: send [] on its first "
        "turn, then the names the previous selection returned; the answer extends that list "
        "(core first, then in first-seen order), so the provider's prompt cache holds",
    )
    k: int | None = Field(None, ge=1, le=1000, description="Non-core tools to bind (default 12)")
    allowed: list[str] | None = Field(
        None,
        description="Rank only among these tools (names, or prefix patterns such as "
        "github__*), core tools included; narrows the token's own list, never widens it",
        examples=[["find_records", "github__*"]],
    )
    explain: bool = Field(
        False,
        description="Also answer why (explain): the tools near the cut with their scores by "
        "signal, where the cut at k fell, the language gate's decision, time per step",
    )


class SelectResponse(BaseModel):
    """The names to send, and how they were chosen: ``full`` carries the reason."""

    names: list[str]
    mode: Literal["narrowed", "passthrough", "full"]
    reason: str | None = Field(
        description="Why the full roster was sent; on a narrowed selection, partly_indexed "
        "when it binds tools that have no vector yet (unranked); null otherwise"
    )
    unranked: list[str] = Field(
        description="Tools bound because they have no vector to rank them by yet (reason "
        "partly_indexed): they are being indexed, and are ranked once they are"
    )
    schema_tokens: int | None
    roster_tokens: int | None
    explain: dict[str, Any] | None = Field(
        None,
        description="With explain: true, why: mode, reason, k, core, chosen, ranked (name, "
        "rank, score, signals, bound, anchor, best_match), cut (k, last_in, first_out, "
        "margin), gate (language, catalog_languages, sparse_weight, lexical_weight, "
        "decision), steps (milliseconds by step), companions",
    )


class FindToolsRequest(_Body):
    """``POST /v1/find_tools``: tools for the capabilities the model asked for (the arguments
    of its find_tools call: ``capabilities``, or one ``query``)."""

    catalog: CatalogName
    capabilities: list[str] | None = Field(
        None,
        max_length=MAX_CAPABILITIES,
        description=f"The capabilities, in plain language (any language), up to "
        f"{MAX_CAPABILITIES}; each is ranked on its own",
        examples=[["link two records", "send the summary by email"]],
    )
    query: str | None = Field(None, description="One capability, instead of capabilities")
    bound: list[str] = Field(default_factory=list, description="Names already bound: left out")
    limit: int = Field(
        MAX_DISCOVERED_TOOLS,
        ge=1,
        le=MAX_DISCOVERED_TOOLS,
        description="At most this many tools a capability",
    )
    allowed: list[str] | None = Field(
        None,
        description="Search only among these tools (names, or prefix patterns such as "
        "github__*); narrows the token's own list, never widens it",
    )


class FoundTool(BaseModel):
    name: str
    description: str


class CapabilityResult(BaseModel):
    """One capability's tools, best first; ``reason`` when it could not be searched."""

    capability: str
    tools: list[FoundTool]
    reason: str | None = None


class FindToolsResponse(BaseModel):
    """Per capability asked, in order, up to ``limit`` tools, none repeated across capabilities
    (``results``); every tool found, in that order (``tools``); ``reason`` says why there are
    none when no search could run."""

    results: list[CapabilityResult]
    tools: list[FoundTool]
    reason: str | None = None


class FindToolsDefinition(BaseModel):
    """``GET /v1/catalogs/{name}/find_tools?shape=…``: the find_tools definition to bind for
    this catalog, in the provider's shape, its description naming what lies behind it (Gemini's
    schema under ``parametersJsonSchema``, the JSON wire's name)."""

    definition: dict[str, Any]


class CatalogRegistration(_Body):
    """``POST /v1/catalogs/{name}``: tool JSON (``openai``, ``anthropic``) or MCP listings."""

    format: Literal["openai", "anthropic", "mcp"]
    tools: list[dict[str, Any]] | None = Field(
        None, description="OpenAI or Anthropic tool definitions (format openai or anthropic)"
    )
    servers: dict[str, Any] | None = Field(
        None, description="Server name → its tools/list result or list of tools (format mcp)"
    )
    core: list[str] = Field(default_factory=list, description="Tools always sent")
    examples: dict[str, list[str]] | None = Field(
        None, description="Tool name → example requests (any language)"
    )
    keywords: dict[str, list[str]] | None = Field(None, description="Tool name → keywords")
    third_party: bool | None = Field(
        None,
        description="Whether someone else wrote these tools (the default: true). Then a thin "
        "description or an input schema model providers refuse is a warning and the tool is "
        "kept; false (tools your application writes): a 422 naming the tool",
    )


class ToolWarning(BaseModel):
    """A tool kept despite a problem its author must fix: ``thin_description``, or
    ``invalid_schema`` (an input schema model providers refuse, at ``pointer``)."""

    tool: str
    kind: str
    message: str
    pointer: str | None = Field(
        None, description="Where in the tool's input schema (a JSON pointer; invalid_schema)"
    )


class Indexing(BaseModel):
    """What happened to the catalog's vectors: ``current`` (already served), ``queued`` (the
    worker will index it), ``indexed`` (indexed inline, now served), ``failed`` (see
    ``detail``; selections fall open with ``not_indexed`` until it is indexed)."""

    state: Literal["current", "queued", "indexed", "failed"]
    detail: str | None = None


class RegistrationResponse(BaseModel):
    catalog: str
    tools: int
    core: int
    created: bool
    warnings: list[ToolWarning]
    indexing: Indexing


class FeedbackRequest(_Body):
    """``POST /v1/feedback``: what a turn called against what its selection bound."""

    catalog: CatalogName
    message: str = Field(description="The message the selection was made for")
    bound: list[str] = Field(description="The names the selection returned")
    mode: Literal["narrowed", "passthrough", "full"] = "narrowed"
    called: list[str] | None = Field(None, description="The tools the model called")
    messages: list[dict[str, Any]] | None = Field(
        None, description="Or the turn's transcript (OpenAI or Anthropic messages)"
    )
    learn: bool | None = Field(None, description="Let the worker learn from misses")


class FeedbackResponse(BaseModel):
    queued: bool
    reason: str | None = None


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    """Ready when the database answers, its schema is the one this toolret queries, and the
    embedder's warm-up is over (``warming`` until then: a selection would wait for it and may
    send every tool). A warm-up that failed leaves the process ready: its breaker sends the full
    roster at once, as every process's would."""

    ready: bool
    database: str
    embedder: Literal["warming", "warm", "unavailable", "unused"]
    schema_revision: str | None
    expected_revision: str
