"""What the fleet studies score with: the tuning sets, their fleet views, and scores per message.

A first-party set (massive-dev, the roster) has no servers. Its **fleet view** lists the same
tools as an MCP fleet would (``as_fleet``): each under a server named after its domain, or the
first word of its name (``alarm_set`` under ``alarm``), with its own name after it. A document
choice that only touches MCP tools leaves the plain set alone by construction; the view shows
what it does to those descriptions, messages and languages once a user brings them as servers.

``Scorer`` embeds each text once through the run's ``MemoEmbedder`` and scores every message of
a (set, example configuration) the way the in-memory retriever does: ``DenseIndex`` for dense
scores under the embedder's ``ToolScore``, ``catalog_index`` for BM25, ``fuse`` for hybrid.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from toolret._catalog import Catalog
from toolret._tool import Document, Role, Tool, readable_identifier
from toolret.adapters._mcp import McpOrigin, mcp_origin
from toolret.embedders._base import embed_role
from toolret.embedders._cache import with_query_cache
from toolret.recall._data import BenchSet
from toolret.recall._memo import MemoEmbedder
from toolret.retrieval._lexical import catalog_index, fuse, hybrid_weight
from toolret.retrieval._memory import DenseIndex

__all__ = ["Scored", "Scorer", "as_fleet", "is_fleet", "server_of"]

DocumentText = Callable[[Tool], str]


def is_fleet(bench: BenchSet) -> bool:
    """Whether the set's tools came from MCP servers."""
    return any(mcp_origin(tool) is not None for tool in bench.tools)


def server_of(tool: Tool) -> str:
    """The tool's MCP server, or "" for a tool no server listed."""
    origin = mcp_origin(tool)
    return origin[0] if origin else ""


def as_fleet(bench: BenchSet) -> BenchSet:
    """The set as if its tools came from MCP servers (see the module docstring)."""
    tools = []
    for tool in bench.tools:
        server = tool.domain or tool.name.partition("_")[0]
        original = tool.name if tool.domain else tool.name.partition("_")[2] or tool.name
        origin = McpOrigin(server, original, None)
        tools.append(dataclasses.replace(tool, definition=origin, third_party=True))
    return dataclasses.replace(bench, name=f"{bench.name} as a fleet", tools=tuple(tools))


@dataclass
class Scored:
    """One (set, example configuration): its catalog, cases per language and query vectors."""

    bench: BenchSet
    examples: bool
    catalog: Catalog
    vectors: dict[str, NDArray[np.float32]]
    """Query vector by message."""

    def bm25(self, text: str) -> dict[str, float]:
        return catalog_index(self.catalog).score_map(text)


class Scorer:
    """Embeds (once) and scores for the fleet studies."""

    def __init__(self, memo: MemoEmbedder) -> None:
        self.memo = memo
        self.embedder = with_query_cache(memo)
        """What the retrievers embed with: texts cut to the model's window as they cut them."""
        self.score = memo.profile.score
        self.profile = memo.profile
        self._dense: dict[tuple[int, str], DenseIndex] = {}

    async def prepare(self, bench: BenchSet, examples: bool) -> Scored:
        catalog = bench.catalog(examples=examples)
        queries = [case.query for case in bench.cases]
        vectors = [await self.embedder.embed_query(query) for query in queries]
        return Scored(bench, examples, catalog, dict(zip(queries, vectors, strict=True)))

    async def embed(self, texts: Sequence[str], role: Role = "document") -> NDArray[np.float32]:
        if role == "query" and texts:  # one by one, as a retriever embeds a message
            return np.stack([await self.embedder.embed_query(text) for text in texts])
        return await embed_role(self.embedder, list(texts), role)

    async def index(self, scored: Scored, text: DocumentText) -> DenseIndex:
        """The dense index of ``scored``'s catalog with descriptions written by ``text``."""
        documents: list[tuple[str, Document]] = []
        for tool in scored.catalog.tools:
            documents.append((tool.name, Document(text(tool), "document", "description")))
            documents += [
                (tool.name, Document(example.strip(), self.memo.example_role, "example"))
                for example in tool.examples
            ]
        vectors = {}
        roles: tuple[Role, ...] = ("document", "query")
        for role in roles:
            texts = list(dict.fromkeys(doc.text for _, doc in documents if doc.role == role))
            embedded = await self.embed(texts, role)
            vectors.update({Document(t, role).key: v for t, v in zip(texts, embedded, strict=True)})
        return DenseIndex.from_vectors(scored.catalog.names, documents, vectors, self.score)

    async def tool_vectors(self, scored: Scored, text: DocumentText) -> NDArray[np.float32]:
        """One document vector per tool, in catalog order, written by ``text``."""
        texts = [text(tool) for tool in scored.catalog.tools]
        distinct = list(dict.fromkeys(texts))
        embedded = dict(zip(distinct, await self.embed(distinct), strict=True))
        return np.stack([embedded[t] for t in texts])

    async def server_vectors(
        self, scored: Scored, text: Callable[[str, list[Tool]], str]
    ) -> tuple[NDArray[np.float32], NDArray[np.intp]]:
        """One vector per server (written by ``text`` from its name and tools) and each tool's
        server, in catalog order."""
        servers = list(dict.fromkeys(server_of(tool) for tool in scored.catalog.tools))
        position = {server: i for i, server in enumerate(servers)}
        members: dict[str, list[Tool]] = {server: [] for server in servers}
        for tool in scored.catalog.tools:
            members[server_of(tool)].append(tool)
        vectors = await self.embed(
            [text(readable_identifier(server), members[server]) for server in servers]
        )
        owner = np.array([position[server_of(tool)] for tool in scored.catalog.tools])
        return vectors, owner

    def hybrid(
        self, scored: Scored, dense: dict[str, float], text: str, *, scale: float = 1.0
    ) -> dict[str, float]:
        """``dense`` fused with BM25 as hybrid ranking fuses them, the weight times ``scale``."""
        weight = scale * hybrid_weight(scored.catalog, text, self.profile)
        return fuse(dense, scored.bm25(text), weight)
