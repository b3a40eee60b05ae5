"""How one embedding model's tools are written and scored: its ``RetrievalProfile``.

Three choices move recall by several points with a small model, and the best value of each
depends on the model, so each is chosen by measurement, per model, on data the roster's reported
figures do not come from (``toolret recall DIR --study template|role|score|hybrid``):

- the **document template**: which fields a tool's description document holds, in which order
  (``toolret._tool.render``);
- the **example role**: whether example requests are embedded as queries or as documents (the
  embedder's ``example_role``, which the rest of toolret already reads);
- the **tool score**: how a tool's description and example vectors combine into its score
  (``ToolScore``), computed identically by the in-memory retriever and in SQL;
- and, for hybrid ranking, the **lexical weight** that adds BM25 to that score, and for a model
  with a sparse head, the **sparse weight** that adds its latent terms
  (``toolret.embedders._sparse``), and when.

An embedder declares its profile as a ``profile`` attribute; one that does not gets
``DEFAULT_PROFILE`` (what was measured best for the bundled model, the only one measured here).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import NDArray

from toolret._tool import DEFAULT_TEMPLATE, LEGACY_TEMPLATE, Document, check_template

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.embedders._base import Embedder

__all__ = [
    "DEFAULT_PROFILE",
    "LEARNED_MIN_SIMILARITY",
    "LEGACY_PROFILE",
    "MAX_SCORE",
    "SPARSE_PROFILE",
    "RetrievalProfile",
    "ToolScore",
    "corpus_documents",
    "corpus_hash",
    "profile_of",
]


LEARNED_MIN_SIMILARITY = 0.92
"""A learned example vector scores a message only when their cosine similarity reaches this.

Learned vectors are query embeddings, and two queries score higher than a query and a document,
so ungated they would outrank descriptions for unrelated messages. Chosen on tuning data only:
docs/decisions.md, "Learned vectors: the similarity cut-off"."""


@dataclass(frozen=True)
class ToolScore:
    """How a tool's cosine similarities to a query combine into the tool's score.

    - ``max``: the best of its description and examples (one strong example decides);
    - ``blend``: ``description_weight`` x the description's similarity plus the rest x the mean
      of its ``examples`` best examples; a tool without examples scores its description. The
      description and the examples must agree, so one example that happens to share a word
      with the message cannot carry the tool to the top.
    """

    kind: Literal["max", "blend"] = "blend"
    description_weight: float = 0.5
    examples: int = 2

    def __post_init__(self) -> None:
        if self.kind not in ("max", "blend"):
            raise ValueError(f"unknown tool score {self.kind!r}; use 'max' or 'blend'")
        if not 0.0 <= self.description_weight <= 1.0:
            raise ValueError("description_weight must be between 0 and 1")
        if self.examples < 1:
            raise ValueError("a blended score averages at least one example")

    def combine(
        self, described: NDArray[np.float64], cosines: NDArray[np.float64], owners: NDArray[np.intp]
    ) -> NDArray[np.float64]:
        """Each tool's score from its description's cosine (``described``, one per tool) and its
        examples' (``cosines``, the tool of each in ``owners``): the one place outside SQL where
        the score is computed, for the in-memory retriever and the worker's promotions alike."""
        combined = np.array(described, dtype=np.float64)
        if not len(owners):
            return combined
        if self.kind == "max":
            np.maximum.at(combined, owners, cosines)
            return combined
        order = np.lexsort((-cosines, owners))  # by tool, then its best examples first
        grouped = owners[order]
        rank = np.arange(len(order)) - np.searchsorted(grouped, grouped, side="left")
        taken = order[rank < self.examples]
        sums = np.zeros(len(combined))
        np.add.at(sums, owners[taken], cosines[taken])
        counts = np.bincount(owners[taken], minlength=len(combined))
        has = counts > 0
        weight = self.description_weight
        combined[has] = weight * combined[has] + (1 - weight) * sums[has] / counts[has]
        return combined

    def __str__(self) -> str:
        if self.kind == "max":
            return "max"
        weight = self.description_weight
        return f"{weight:g}·description + {1 - weight:g}·mean(best {self.examples} examples)"


MAX_SCORE = ToolScore("max")
"""Each tool scores its best vector, description or example: toolret's score before it was
measured, and Gemini's still."""


SparseWhen = Literal["always", "other_language", "described_elsewhere"]


@dataclass(frozen=True)
class RetrievalProfile:
    """The document template, tool score, lexical weight and text prefixes of one embedding model.

    Hybrid ranking adds to a tool's dense score, when the message shares informative words
    with it, a weight x its BM25 score over the best BM25 score
    (``toolret.retrieval._lexical.fuse``). The weight follows the message
    (``lexical_weight_for``): ``lexical_weight`` for a message with up to ``lexical_words``
    distinct informative words, growing as ``(words / lexical_words) ** lexical_growth`` past
    them, because a long message's one vector blurs the several things it asks for while BM25
    sums the evidence of each word. ``lexical_growth`` 0 keeps the weight fixed. The weight is
    in the model's cosine units, so it is per model.

    A model with a sparse head may add its sparse score too (``sparse_weight``, ``sparse_when``):
    a tool's score is then its dense score plus the weight x its sparse score, before BM25.
    """

    template: str = DEFAULT_TEMPLATE
    score: ToolScore = field(default_factory=ToolScore)
    lexical_weight: float = 0.015
    lexical_words: float = 5.0
    lexical_growth: float = 2.0
    query_prefix: str = ""
    """What an embedder that sends text to a server puts before a query: the model's convention
    (E5 ``query: ``, an instruction for instruction-tuned models, nothing for OpenAI's).
    Models that add their own (the bundled one) leave both empty."""
    document_prefix: str = ""
    """The same before a document (E5 ``passage: ``)."""
    sparse_weight: float = 0.0
    """Weight of a tool's sparse score (its ``score`` over the sparse cosines of its documents),
    added to its dense one in ``dense`` and ``hybrid`` modes; 0 for no sparse signal (a model
    without a sparse head has none)."""
    sparse_when: SparseWhen = "other_language"
    """When a message gets the sparse signal (and pays its second encoder pass): ``always``;
    only when its language is not one of the catalog's (``other_language``); or when some of
    the catalog's tools are described in another language than its own
    (``described_elsewhere``: ``toolret.retrieval._sparse``)."""
    sparse_min_words: float = 0.0
    """No sparse signal on a catalog whose descriptions' median length is below this many words
    (0: on any catalog): on two- or three-word descriptions the latent terms match by accident
    (docs/decisions.md, "The sparse signal on catalogs nobody tuned on")."""
    sparse_latents: int = 512
    """How many of its strongest latents a sparse vector keeps, a document's and a message's
    alike (at most the head's ``top_k``); part of what the store keys sparse vectors by."""
    sparse_short_words: float = 0.0
    sparse_full_words: float = 0.0
    """The sparse weight follows the message's length: none up to ``sparse_short_words`` words,
    all of it from ``sparse_full_words`` on, linear between (0: the whole weight at any length).
    In a capability phrase of a few words one shared latent term outweighs a dense ranking that
    was right (``toolret.retrieval._short``)."""

    def __post_init__(self) -> None:
        check_template(self.template)
        if self.sparse_weight < 0:
            raise ValueError("sparse_weight must not be negative")
        if self.sparse_latents < 1:
            raise ValueError("sparse_latents must be at least 1")
        if self.sparse_when not in ("always", "other_language", "described_elsewhere"):
            raise ValueError(
                f"unknown sparse_when {self.sparse_when!r}; "
                "use always, other_language or described_elsewhere"
            )
        if self.sparse_min_words < 0:
            raise ValueError("sparse_min_words must not be negative")
        if not 0 <= self.sparse_short_words <= self.sparse_full_words:
            raise ValueError("need 0 <= sparse_short_words <= sparse_full_words")
        if self.lexical_weight < 0:
            raise ValueError("lexical_weight must not be negative")
        if self.lexical_words <= 0:
            raise ValueError("lexical_words must be positive")
        if self.lexical_growth < 0:
            raise ValueError("lexical_growth must not be negative")

    def lexical_weight_for(self, words: int) -> float:
        """The lexical weight for a message with ``words`` distinct informative words
        (``toolret.retrieval._lexical.BM25Index.words``)."""
        growth: float = max(1.0, words / self.lexical_words) ** self.lexical_growth
        return self.lexical_weight * growth


DEFAULT_PROFILE = RetrievalProfile()
"""Measured best for the bundled model (with examples embedded as queries): keywords, description
and parameters, no name; 0.5·description + 0.5·mean of the two best examples; BM25 weight 0.015
up to five informative words, growing as their square past them, chosen on every tuning set
together (massive-dev, toollens-dev and the roster's tuning half; see docs/decisions.md). No
sparse signal: ``SPARSE_PROFILE`` adds it (what the bundled model declares with
``TOOLRET_SPARSE=1``). On
massive-dev and the roster's tuning half, with examples, the template and score raised mean MRR
from 0.624 (the legacy template, max score, examples as documents) to 0.751; descriptions alone,
from 0.537 to 0.587."""

SPARSE_PROFILE = RetrievalProfile(
    sparse_weight=1.0,
    sparse_when="described_elsewhere",
    sparse_min_words=5.0,
    sparse_latents=512,
    sparse_short_words=4.0,
    sparse_full_words=8.0,
)
"""``DEFAULT_PROFILE`` plus the bundled model's sparse head: its 512 strongest latents, at weight 1,
for messages whose catalog has tools described in another language than theirs (and no
examples in theirs), on catalogs whose descriptions' median is at least five words; none for a
message of four words or fewer, all of it from eight, linear between (a capability phrase:
docs/decisions.md, "Short phrases and the sparse signal"). What the
bundled model ranks with under ``TOOLRET_SPARSE=1`` (opt-in: docs/decisions.md says why it is not
the default yet). Chosen on half A of every
tuning set's requests and confirmed on half B: no (set, language) loses more than a point of
R@3, R@5 or R@12 on either half, toollens-dev-ml's five other languages gain 11–16 points of
R@12, and English gains 3–8 on the fleet with a tenth of its tools described in Chinese
(docs/decisions.md, "The sparse signal on catalogs nobody tuned on"). The messages it sends pay
a second encoder pass (``select()`` about twice as long for them)."""

LEGACY_PROFILE = RetrievalProfile(
    template=LEGACY_TEMPLATE, score=MAX_SCORE, lexical_growth=0.0, sparse_weight=0.0
)
"""toolret's choices before they were measured: name, description, keywords and category, one
per line; max over vectors; the lexical weight fixed at 0.015. Gemini keeps them: it cannot be
measured without a key, and a new template would re-embed (and bill) every description."""


def profile_of(embedder: object) -> RetrievalProfile:
    """The ``profile`` an embedder declares, or ``DEFAULT_PROFILE``; without a sparse weight
    when the embedder has no sparse head (``toolret.embedders._sparse``): nothing changes for
    a model that has none."""
    declared = getattr(embedder, "profile", None)
    profile = declared if isinstance(declared, RetrievalProfile) else DEFAULT_PROFILE
    has_head = getattr(embedder, "sparse_head", None) is not None
    if profile.sparse_weight > 0 and not has_head:
        return replace(profile, sparse_weight=0.0)
    return profile


def corpus_documents(catalog: Catalog, embedder: Embedder) -> list[tuple[str, Document]]:
    """The (tool name, document) pairs ``embedder`` embeds for ``catalog``, in catalog order;
    for a cut (``Catalog.only``), those of the catalog it was cut from, whose corpus it ranks."""
    return catalog.whole.documents(embedder.example_role, profile_of(embedder).template)


def corpus_hash(catalog: Catalog, embedder: Embedder) -> str:
    """The hash of ``catalog``'s corpus for ``embedder``: its model, role and template."""
    template = profile_of(embedder).template
    return catalog.corpus_hash(embedder.model_id, embedder.example_role, template)
