"""The sparse signal in ranking: when a message gets it, and how the tools' sparse scores are
computed in memory.

A model with a sparse head (``toolret.embedders._sparse``) gives every tool document a sparse
vector beside its dense one. A tool's sparse score combines its documents' sparse cosines with
the message exactly as its dense score combines their dense ones (the profile's ``ToolScore``),
and ranking adds ``sparse_weight`` x it to the dense score, before BM25
(``RetrievalProfile.sparse_weight``).

The message's sparse vector costs a second pass of the encoder, so it is spent only where it
pays (``sparse_weight``), and given at most ``SPARSE_SHARE`` of the selection's time budget
(past it, the message is ranked without it). The bundled model's gate
(``sparse_when="described_elsewhere"``, docs/decisions.md, "The sparse signal on catalogs
nobody tuned on") sends a message when some of the catalog's tools are described in another
language than its own (``described_elsewhere``), on catalogs whose descriptions are not too terse
for latent terms (``sparse_in_use``); the earlier gate (``other_language``) sends it when the
message's language holds under ``LANGUAGE_SHARE`` of the catalog's descriptions and examples.
"""

from __future__ import annotations

import asyncio
import statistics
import unicodedata
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from toolret._profile import ToolScore, corpus_documents, profile_of
from toolret._tool import Document, Role
from toolret.embedders._sparse import SparseMatrix, SparseVector, sparse_head_of
from toolret.retrieval._short import length_share

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret._profile import RetrievalProfile
    from toolret.embedders._base import Embedder

__all__ = [
    "LANGUAGE_SHARE",
    "SparseIndex",
    "catalog_languages",
    "described_elsewhere",
    "described_languages",
    "described_words",
    "example_languages",
    "language_of",
    "sparse_documents",
    "sparse_in_use",
    "sparse_query",
    "sparse_query_within",
    "sparse_weight",
    "warm_up_languages",
    "written_in",
]

LANGUAGE_SHARE = 0.1
"""A language is one of the catalog's when this share of its texts (each tool's description,
each example) is in it."""

DESCRIBED_SHARE = 0.05
"""With ``sparse_when="described_elsewhere"``, a language counts as one the catalog's tools are
described in when this share of its descriptions is in it: low enough for a fleet with a tenth
of its tools described in Chinese, above what the identifier's mistakes on English reach."""
LATIN_WORDS = 4
"""A Latin-script description shorter than this many words is too short to tell English from
Tagalog or Occitan (``py3langid`` guesses): it counts as ``latin``, any Latin-script language."""
LATIN = "latin"
PLAUSIBLE = 0.05
"""A language the identifier gives a message at least this probability may be the message's."""
SAME_LANGUAGE = {"wuu": "zh", "yue": "zh", "arz": "ar", "ary": "ar"}
"""``py3langid``'s varieties, read as the language they are written in."""

SPARSE_SHARE = 0.25
"""The share of a selection's time budget the message's sparse pass may take (it usually takes
what the dense pass does, a few percent of the budget)."""

_LANGUAGES: weakref.WeakKeyDictionary[Catalog, frozenset[str]] = weakref.WeakKeyDictionary()
_DESCRIBED: weakref.WeakKeyDictionary[Catalog, frozenset[str]] = weakref.WeakKeyDictionary()
_EXAMPLES: weakref.WeakKeyDictionary[Catalog, frozenset[str]] = weakref.WeakKeyDictionary()


@cache
def _identifier() -> Any:
    """py3langid over every language it knows (loaded once, ~1 s)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE)


def language_of(text: str) -> str:
    """The language ``py3langid`` identifies ``text`` as (an ISO 639-1 code)."""
    return str(_identifier().classify(text)[0])


def catalog_languages(catalog: Catalog) -> frozenset[str]:
    """The languages of the catalog's descriptions and examples (each holding at least
    ``LANGUAGE_SHARE`` of them); computed once per catalog (a cut: the whole catalog's)."""
    catalog = catalog.whole
    found = _LANGUAGES.get(catalog)
    if found is None:
        texts = [t for tool in catalog.tools for t in (tool.description, *tool.examples) if t]
        labels = [language_of(text) for text in texts]
        counts = {label: labels.count(label) for label in set(labels)}
        found = frozenset(k for k, n in counts.items() if n >= LANGUAGE_SHARE * len(labels))
        _LANGUAGES[catalog] = found
    return found


def written_in(text: str, *, short: bool = False) -> str:
    """The language ``text`` is written in, read by its script first: kana is Japanese, Han
    without kana Chinese, Hangul Korean (``py3langid`` splits Chinese into varieties and reads
    short Japanese as Chinese); otherwise ``py3langid``'s code. With ``short``, a Latin-script
    text of fewer than ``LATIN_WORDS`` words is only ``latin``: too short to tell which."""
    scripts = {unicodedata.name(ch, " ").split(" ")[0] for ch in text if ch.isalpha()}
    if scripts & {"HIRAGANA", "KATAKANA"}:
        return "ja"
    if "HANGUL" in scripts:
        return "ko"
    if "CJK" in scripts:
        return "zh"
    if short and scripts <= {"LATIN"} and len(text.split()) < LATIN_WORDS:
        return LATIN
    code = language_of(text)
    return SAME_LANGUAGE.get(code, code)


def described_languages(catalog: Catalog) -> frozenset[str]:
    """The languages the catalog's tools are described in (each holding at least
    ``DESCRIBED_SHARE`` of its descriptions; ``written_in(short=True)``); once per catalog."""
    catalog = catalog.whole
    found = _DESCRIBED.get(catalog)
    if found is None:
        labels = [written_in(t.description or t.name, short=True) for t in catalog.tools]
        counts = {label: labels.count(label) for label in set(labels)}
        found = frozenset(k for k, n in counts.items() if n >= DESCRIBED_SHARE * len(labels))
        _DESCRIBED[catalog] = found
    return found


def described_elsewhere(catalog: Catalog, text: str) -> bool:
    """Whether some of the catalog's tools are described in another language than ``text``'s:
    a message in Persian on English descriptions, and an English one on a fleet with a tenth
    of its tools described in Chinese. A described language the identifier gives the message
    at least ``PLAUSIBLE`` probability counts as the message's (short English messages are
    often read as something else), and a ``latin`` one as any Latin-script message's. A
    message in a language the tools' examples are written in (``example_languages``) does not
    get it: the dense model matches it to those examples directly, and on the tuning sets the
    signal only cost such messages."""
    language, latin = written_in(text), _latin_script(text)
    if language in example_languages(catalog):
        return False
    chances = _chances(text)
    return any(
        described != language
        and not (described == LATIN and latin)
        and chances.get(described, 0.0) < PLAUSIBLE
        for described in described_languages(catalog)
    )


def example_languages(catalog: Catalog) -> frozenset[str]:
    """The languages holding at least ``LANGUAGE_SHARE`` of the catalog's examples (none
    without examples); once per catalog."""
    catalog = catalog.whole
    found = _EXAMPLES.get(catalog)
    if found is None:
        labels = [written_in(text) for tool in catalog.tools for text in tool.examples]
        counts = {label: labels.count(label) for label in set(labels)}
        found = frozenset(k for k, n in counts.items() if n >= LANGUAGE_SHARE * len(labels))
        _EXAMPLES[catalog] = found
    return found


def _chances(text: str) -> dict[str, float]:
    """Each language's probability for ``text`` under ``py3langid`` (varieties merged)."""
    ranked = _identifier().rank(text)
    logs = np.array([score for _, score in ranked], dtype=np.float64)
    shares = np.exp(logs - logs.max())
    shares /= shares.sum()
    chances: dict[str, float] = {}
    for (code, _), share in zip(ranked, shares.tolist(), strict=True):
        merged = SAME_LANGUAGE.get(code, code)
        chances[merged] = chances.get(merged, 0.0) + share
    return chances


def _latin_script(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    latin = sum(unicodedata.name(ch, "").startswith("LATIN") for ch in letters)
    return bool(letters) and latin >= len(letters) / 2


def sparse_weight(catalog: Catalog, text: str, profile: RetrievalProfile) -> float:
    """The weight of the sparse signal for ``text`` on ``catalog``: 0 when the profile has none,
    when its gate does not send this message (``sparse_when``), or when the catalog's
    descriptions are too terse for it (``sparse_min_words``); a share of it that follows the
    message's length (``sparse_short_words``, ``toolret.retrieval._short``). Both retrievers
    decide here, so they rank alike."""
    if not sparse_in_use(catalog, profile):
        return 0.0
    when = profile.sparse_when
    if when == "other_language" and language_of(text) in catalog_languages(catalog):
        return 0.0
    if when == "described_elsewhere" and not described_elsewhere(catalog, text):
        return 0.0
    share = length_share(text, profile.sparse_short_words, profile.sparse_full_words)
    return profile.sparse_weight * share


def sparse_in_use(catalog: Catalog, profile: RetrievalProfile) -> bool:
    """Whether any message can get the sparse signal on ``catalog``: the profile has a weight,
    and the catalog's descriptions are not too terse for it (``sparse_min_words``). Where not,
    neither retriever encodes the catalog's sparse vectors."""
    if profile.sparse_weight <= 0:
        return False
    return profile.sparse_min_words <= 0 or described_words(catalog) >= profile.sparse_min_words


def described_words(catalog: Catalog) -> float:
    """The median length in words of the catalog's descriptions (a cut: the whole catalog's)."""
    lengths = [len(tool.description.split()) for tool in catalog.whole.tools]
    return float(statistics.median(lengths)) if lengths else 0.0


async def sparse_query_within(
    embedder: Embedder, text: str, profile: RetrievalProfile, time_budget: float
) -> SparseVector | None:
    """The message's sparse vector, or None when its pass takes more than ``SPARSE_SHARE`` of
    the selection's time budget: the message is then ranked by dense and BM25 alone rather than
    the whole selection running out of time and falling open."""
    try:
        return await asyncio.wait_for(
            sparse_query(embedder, text, profile), SPARSE_SHARE * time_budget
        )
    except TimeoutError:
        return None


async def sparse_query(embedder: Embedder, text: str, profile: RetrievalProfile) -> SparseVector:
    """The message's sparse vector, cut to the profile's latents: the second encoder pass."""
    vector: SparseVector = (await embedder.embed_sparse([text], "query"))[0]  # type: ignore[attr-defined]
    return vector.strongest(profile.sparse_latents)


async def sparse_documents(
    embedder: Embedder, documents: Sequence[Document], profile: RetrievalProfile
) -> list[SparseVector]:
    """The documents' sparse vectors (each in its role's window), cut to the profile's latents:
    what the indexer stores and the in-memory retriever scores."""
    out: dict[str, SparseVector] = {}
    roles: tuple[Role, ...] = ("document", "query")
    for role in roles:
        texts = {d.key: d.text for d in documents if d.role == role}
        encoded = await embedder.embed_sparse(list(texts.values()), role)  # type: ignore[attr-defined]
        out.update(
            (key, v.strongest(profile.sparse_latents))
            for key, v in zip(texts, encoded, strict=True)
        )
    return [out[d.key] for d in documents]


def warm_up_languages() -> None:
    """Load the language identifier now, so the first message does not wait for it."""
    _identifier()


@dataclass(frozen=True)
class SparseIndex:
    """Every document's sparse vector of one catalog, and how a tool's combine: the sparse twin
    of ``toolret.retrieval._memory.DenseIndex`` (the same documents, owners and score)."""

    names: tuple[str, ...]
    descriptions: SparseMatrix
    examples: SparseMatrix
    owners: NDArray[np.intp]
    score: ToolScore

    @classmethod
    async def build(cls, catalog: Catalog, embedder: Embedder) -> SparseIndex:
        """Encode the catalog's documents with ``embedder``'s sparse head (for a cut, the whole
        catalog's)."""
        if sparse_head_of(embedder) is None:
            raise ValueError(f"{embedder.model_id} has no sparse head")
        catalog = catalog.whole
        profile = profile_of(embedder)
        documents = distinct(corpus_documents(catalog, embedder))
        unique = list({doc.key: doc for _, doc in documents}.values())
        encoded = await sparse_documents(embedder, unique, profile)
        vectors = {doc.key: vector for doc, vector in zip(unique, encoded, strict=True)}
        return cls.from_vectors(catalog.names, documents, vectors, profile.score)

    @classmethod
    def from_vectors(
        cls,
        names: Sequence[str],
        documents: Sequence[tuple[str, Document]],
        vectors: Mapping[str, SparseVector],
        score: ToolScore,
    ) -> SparseIndex:
        """An index over sparse vectors already computed (by document key)."""
        documents = distinct(documents)
        descriptions = {name: doc.key for name, doc in documents if doc.kind == "description"}
        examples = [(name, doc.key) for name, doc in documents if doc.kind == "example"]
        position = {name: i for i, name in enumerate(names)}
        return cls(
            tuple(names),
            SparseMatrix.stack([vectors[descriptions[name]] for name in names]),
            SparseMatrix.stack([vectors[key] for _, key in examples]),
            np.array([position[name] for name, _ in examples], dtype=np.intp),
            score,
        )

    def score_array(self, query: SparseVector) -> NDArray[np.float64]:
        """The tools' sparse scores for a query's sparse vector, in ``names`` order."""
        return self.score.combine(
            self.descriptions.dot(query), self.examples.dot(query), self.owners
        )


def distinct(documents: Sequence[tuple[str, Document]]) -> list[tuple[str, Document]]:
    """Each (tool, document key) once, first occurrence kept (the store's corpus does the same)."""
    kept: dict[tuple[str, str], tuple[str, Document]] = {}
    for name, doc in documents:
        kept.setdefault((name, doc.key), (name, doc))
    return list(kept.values())
