"""The lexical index: BM25 (K1=1.5, B=0.75) over each tool's name, description, keywords,
parameters and example requests, and how hybrid ranking adds it to the dense score.

The tokenizer is Unicode-aware: NFKC, casefold, ``\\w+``, with camelCase and snake_case split.
A ``[a-z0-9]+`` tokenizer turns an Arabic or Turkish message into nothing and silently falls open
for every non-English user; this one never does. Indexing the examples is what gives BM25 words
in the users' languages: a Persian message rarely shares a word with an English-only catalog,
and nearly always with the catalog's Persian examples. Scoring uses ``bm25s`` (Lucene's IDF,
which is never negative).

A message scores only through its **informative** words: not an English stopword, and not in
more than ``MAX_DOCUMENT_SHARE`` of the catalog's tools (which catches the function words of
languages with no stopword list). A message with none has no lexical signal: every tool scores
0, and hybrid ranking (``fuse``) leaves the dense ranking as it is. How many it has sets how
much BM25 weighs (``hybrid_weight``).
"""

from __future__ import annotations

import logging
import re
import unicodedata
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN
from numpy.typing import NDArray

from toolret._tool import Tool, parameter_text

# bm25s sets its logger to DEBUG when imported, so an application that logs at INFO would print
# a line for every index built; its level is the application's to choose, as for any library.
if logging.getLogger("bm25s").level == logging.DEBUG:
    logging.getLogger("bm25s").setLevel(logging.NOTSET)

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret._profile import RetrievalProfile

__all__ = [
    "MAX_DOCUMENT_SHARE",
    "BM25Index",
    "catalog_index",
    "fuse",
    "hybrid_weight",
    "lexical_text",
    "tokenize",
]

K1 = 1.5
B = 0.75
MAX_DOCUMENT_SHARE = 0.3
"""A word in more than this share of a catalog's tools (and in more than two) is not evidence
for any one of them; it is left out of the query."""
_STOPWORDS = frozenset(STOPWORDS_EN)
_WORD = re.compile(r"\w+")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def tokenize(text: str) -> list[str]:
    """Words of ``text``: camelCase and snake_case split, NFKC-normalized and casefolded.

    >>> tokenize("kaggle__search_datasets searchDatasets")
    ['kaggle', 'search', 'datasets', 'search', 'datasets']
    """
    text = unicodedata.normalize("NFKC", text)
    tokens: list[str] = []
    for word in _WORD.findall(text):
        for part in _CAMEL_BOUNDARY.sub(" ", word).replace("_", " ").split():
            tokens.append(part.casefold())
    return tokens


def lexical_text(tool: Tool) -> str:
    """What BM25 reads of a tool: its name (an MCP tool's holds its server's), description,
    keywords, parameters (``toolret._tool.parameter_text``) and example requests."""
    parts = (tool.name, tool.description, *tool.keywords, parameter_text(tool), *tool.examples)
    return " ".join(part for part in parts if part)


class BM25Index:
    """BM25 over tools' names, descriptions, keywords, parameters and example requests.

    ``text`` is what is read of each tool (``lexical_text``; the studies compare others)."""

    def __init__(self, tools: Sequence[Tool], text: Callable[[Tool], str] = lexical_text) -> None:
        self.names = [tool.name for tool in tools]
        corpus = [tokenize(text(tool)) for tool in tools]
        tools_with: dict[str, int] = {}
        for doc in corpus:
            for word in set(doc):
                tools_with[word] = tools_with.get(word, 0) + 1
        common = max(2.0, MAX_DOCUMENT_SHARE * len(corpus))
        self.vocabulary = frozenset(
            word for word, count in tools_with.items() if count <= common and word not in _STOPWORDS
        )
        """The informative words: what a message's words must be among to score."""
        self._bm25 = bm25s.BM25(k1=K1, b=B)
        # bm25s rejects an empty document; a sentinel token keeps positions aligned.
        self._bm25.index([doc or ["\x00"] for doc in corpus], show_progress=False)
        self._last: tuple[str, tuple[str, ...]] = ("", ())

    def informative(self, query: str) -> list[str]:
        """The words of ``query`` that can score: informative words of this catalog. The last
        query's are kept: a selection asks twice (its lexical weight, then its evidence)."""
        last = self._last
        if last[0] != query:
            words = tuple(token for token in tokenize(query) if token in self.vocabulary)
            last = self._last = (query, words)
        return list(last[1])

    def words(self, query: str) -> int:
        """How many distinct informative words ``query`` holds: what hybrid's lexical weight
        follows (``RetrievalProfile.lexical_weight_for``)."""
        return len(set(self.informative(query)))

    def scores(self, query: str) -> NDArray[np.float32]:
        """One BM25 score per tool over the query's informative words, in the order the index
        was built (all 0 when it has none)."""
        tokens = self.informative(query)
        if not tokens:
            return np.zeros(len(self.names), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)

    def score_map(self, query: str) -> dict[str, float]:
        """``scores`` by tool name."""
        return dict(zip(self.names, self.scores(query).tolist(), strict=True))

    def evidence(self, query: str) -> dict[str, float]:
        """The tools scoring above 0, by name: what hybrid ranking adds to (``fuse`` reads a
        tool missing here as 0). Cheaper than ``score_map`` when few tools share the words."""
        scores = self.scores(query)
        return {self.names[i]: float(scores[i]) for i in np.flatnonzero(scores > 0)}

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best tools with a score above zero, best first."""
        scores = self.scores(query)
        order = np.argsort(-scores, kind="stable")[:k]
        return [(self.names[i], float(scores[i])) for i in order if scores[i] > 0]


_INDEXES: weakref.WeakKeyDictionary[Catalog, BM25Index] = weakref.WeakKeyDictionary()


def catalog_index(catalog: Catalog) -> BM25Index:
    """The catalog's BM25 index, built on first use and kept as long as the catalog lives: both
    retrievers read one index per catalog."""
    index = _INDEXES.get(catalog)
    if index is None:
        index = _INDEXES[catalog] = BM25Index(catalog.tools)
    return index


def fuse(
    dense: Mapping[str, float], lexical: Mapping[str, float], weight: float
) -> dict[str, float]:
    """Hybrid scores: each tool's dense score plus ``weight`` x its BM25 score over the best.

    A weighted sum ranks every tool once, so a selection stays ``k`` tools (a union of two
    top-k lists binds up to 2k). Without lexical signal (every BM25 score 0) the dense scores
    come back unchanged. ``weight`` is in the dense model's cosine units (``RetrievalProfile``).
    """
    best = max(lexical.values(), default=0.0)
    if best <= 0:
        return dict(dense)
    return {name: score + weight * lexical.get(name, 0.0) / best for name, score in dense.items()}


def hybrid_weight(catalog: Catalog, text: str, profile: RetrievalProfile) -> float:
    """The lexical weight ``fuse`` adds BM25 with for ``text`` on ``catalog``: the profile's,
    following how many of the catalog's informative words the message holds. Both retrievers
    compute it here, from the same index, so they fuse alike."""
    return profile.lexical_weight_for(catalog_index(catalog).words(text))
