"""Why a selection bound what it bound: the ranking near the cut, by the code that ranks.

``explain`` makes the selection exactly as ``Retriever.select`` does (the same call, so the
figures are those ``POST /v1/select`` answers), timing each step of it (``steps_recorded``), and
then asks the same ranking ``NEAR`` places deeper to show what fell just below the cut. A tool's
score does not depend on how deep the ranking is asked (its dense and sparse scores are its own;
BM25 is normalised over the whole catalog's evidence), so the deeper ranking repeats the
selection's scores; the bound tools' figures are taken from the selection itself all the same.

It runs only when asked (``explain: true``, the console): the request path is unchanged.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from cachetools import LRUCache

from toolret.retrieval._metrics import steps_recorded
from toolret.retrieval._selection import Mode, Selection, SelectionPolicy, top_k

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.retrieval._base import Retriever

__all__ = ["NEAR", "Cut", "Explanation", "Gate", "RankedTool", "explain"]

NEAR = 5
"""Places below the cut an explanation shows."""


@dataclass(frozen=True)
class RankedTool:
    """One tool near the cut: its place, its score split by signal, and why it is (not) bound:
    ``ranked`` (within ``k``), ``companion`` (of ``anchor``), or ``""`` (below the cut)."""

    name: str
    rank: int
    score: float
    signals: dict[str, float]
    bound: str
    anchor: str | None = None
    best_match: str | None = None
    """The tool's document closest to the message: ``description`` or the example's text."""


@dataclass(frozen=True)
class Cut:
    """Where the cut at ``k`` fell: the last score bound by rank and the first left out."""

    k: int
    last_in: float | None
    first_out: float | None

    @property
    def margin(self) -> float | None:
        """How far above the first tool left out the last one in stands."""
        if self.last_in is None or self.first_out is None:
            return None
        return self.last_in - self.first_out


@dataclass(frozen=True)
class Gate:
    """The language gate's decision: which signals this message was ranked with."""

    language: str | None
    catalog_languages: tuple[str, ...]
    sparse_weight: float
    lexical_weight: float
    decision: str


@dataclass(frozen=True)
class Explanation:
    """The selection and the ranking behind it (``as_dict``: the JSON the API and the console
    show)."""

    mode: str
    reason: str | None
    k: int
    core: tuple[str, ...]
    chosen: tuple[str, ...]
    """The bound non-core tools, in the order they are sent."""
    ranked: tuple[RankedTool, ...]
    cut: Cut | None
    gate: Gate | None
    steps: dict[str, float]
    """Milliseconds by step: ``select`` (the whole selection), ``embed``, ``database``."""
    companions: dict[str, str] = field(default_factory=dict)
    schema_tokens: int | None = None
    roster_tokens: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cut"] = None if self.cut is None else {**asdict(self.cut), "margin": self.cut.margin}
        return out


async def explain(
    retriever: Retriever,
    catalog: Catalog,
    message: str,
    *,
    k: int | None = None,
    resume: bool = False,
    stable: SelectionPolicy | None = None,
) -> tuple[Selection, Explanation]:
    """The selection ``retriever.select`` makes for ``message``, and its explanation."""
    k = retriever.k if k is None else k
    started = time.perf_counter()
    with steps_recorded() as steps:
        selection = await retriever.select(catalog, message, resume=resume, k=k, stable=stable)
    timings = {"select": selection.elapsed_ms, **steps}
    core = tuple(tool.name for tool in catalog.core)
    chosen = tuple(name for name in selection.names if name not in core)
    base = Explanation(
        selection.mode.value,
        selection.reason.value if selection.reason is not None else None,
        k,
        core,
        chosen,
        (),
        None,
        None,
        timings,
        dict(selection.companions),
        selection.schema_tokens,
        selection.roster_tokens,
    )
    if selection.mode is not Mode.NARROWED:
        return selection, base
    remaining = retriever.time_budget - (time.perf_counter() - started)
    try:
        async with asyncio.timeout(max(remaining, retriever.time_budget / 2)):
            ranking = await retriever.rank(catalog, message, k + NEAR)
            gate = _gate(retriever, catalog, message, ranking.parts)
    except Exception:  # the selection stands; only its neighbourhood is unknown
        return selection, base
    names = top_k(catalog, ranking.scores, k + NEAR)
    parts = ranking.parts
    rows = []
    for place, name in enumerate(names, start=1):
        signals = selection.signals.get(name) or (parts.of(name) if parts else {})
        bound = "ranked" if name in chosen else ""
        if name in selection.companions:
            bound = "companion"
        score = selection.scores.get(name, float(ranking.scores[name]))
        rows.append(
            RankedTool(name, place, score, dict(signals), bound, selection.companions.get(name))
        )
    rows = await _best_matches(retriever, catalog, message, rows)
    ranked_in = [row.score for row in rows if row.bound == "ranked"]
    left_out = [row.score for row in rows if not row.bound]
    cut = Cut(k, min(ranked_in, default=None), max(left_out, default=None))
    return selection, replace(base, ranked=tuple(rows), cut=cut, gate=gate)


def _gate(retriever: Retriever, catalog: Catalog, message: str, parts: Any) -> Gate | None:
    """What the language gate decided for ``message`` (``toolret.retrieval._sparse``)."""
    if retriever.mode == "bm25":
        return None
    from toolret._profile import profile_of
    from toolret.retrieval._sparse import catalog_languages, language_of

    profile = profile_of(retriever.embedder)
    language = language_of(message)
    languages = tuple(sorted(catalog_languages(catalog)))
    applied = parts.sparse_weight if parts is not None else 0.0
    lexical = parts.lexical_weight if parts is not None else 0.0
    if profile.sparse_weight <= 0:
        decision = "no sparse signal: the model's profile has none"
    elif applied > 0:
        decision = f"sparse signal on: the message is in {language}, the catalog in " + (
            ", ".join(languages) or "no language identified"
        )
    elif profile.sparse_when == "other_language" and language in languages:
        decision = f"no sparse signal: the message is in {language}, one of the catalog's"
    else:
        decision = "no sparse signal: the catalog's sparse vectors are not built yet"
    return Gate(language, languages, applied, lexical, decision)


_DOCUMENT_VECTORS: LRUCache[tuple[str, str], Any] = LRUCache(maxsize=50_000)
"""Document vectors the explanations embedded, by (model id, document key): the Playground asks
about the same catalog again and again, and a document's vector never changes."""


async def _best_matches(
    retriever: Retriever, catalog: Catalog, message: str, rows: list[RankedTool]
) -> list[RankedTool]:
    """Each row with its document closest to the message by the embedder's cosine (the
    documents of these few tools embedded once and kept; the query vector is the selection's,
    cached)."""
    if retriever.mode == "bm25" or not rows:
        return rows
    from toolret._profile import corpus_documents
    from toolret.embedders._base import embed_role

    embedder = retriever.embedder
    wanted = {row.name for row in rows}
    documents = [(name, doc) for name, doc in corpus_documents(catalog, embedder) if name in wanted]
    query = np.asarray(await embedder.embed_query(message), dtype=np.float32)
    for role in ("document", "query"):
        missing = list(
            {
                doc.key: doc
                for _, doc in documents
                if doc.role == role and (embedder.model_id, doc.key) not in _DOCUMENT_VECTORS
            }.values()
        )
        if missing:
            vectors = await embed_role(embedder, [doc.text for doc in missing], role)
            for doc, vector in zip(missing, vectors, strict=True):
                _DOCUMENT_VECTORS[(embedder.model_id, doc.key)] = np.asarray(vector)
    best: dict[str, tuple[float, str | None]] = {}
    for name, doc in documents:
        cosine = float(_DOCUMENT_VECTORS[(embedder.model_id, doc.key)] @ query)
        label = "description" if doc.kind == "description" else doc.text
        if name not in best or cosine > best[name][0]:
            best[name] = (cosine, label)
    return [
        replace(row, best_match=best[row.name][1] if row.name in best else None) for row in rows
    ]
