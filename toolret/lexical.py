"""The lexical index: BM25 (K1=1.5, B=0.75) over each tool's name and description.

The tokenizer is Unicode-aware: NFKC, casefold, ``\\w+``, with camelCase and snake_case split.
A ``[a-z0-9]+`` tokenizer turns an Arabic or Turkish message into nothing and silently falls open
for every non-English user; this one never does. Scoring uses ``bm25s`` (Lucene's IDF, which is
never negative).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import bm25s
import numpy as np
from numpy.typing import NDArray

from toolret.tool import Tool

__all__ = ["BM25Index", "tokenize"]

K1 = 1.5
B = 0.75
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


class BM25Index:
    """BM25 over tools' names and descriptions."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self.names = [tool.name for tool in tools]
        corpus = [tokenize(f"{tool.name} {tool.description}") for tool in tools]
        self._bm25 = bm25s.BM25(k1=K1, b=B)
        # bm25s rejects an empty document; a sentinel token keeps positions aligned.
        self._bm25.index([doc or ["\x00"] for doc in corpus], show_progress=False)

    def scores(self, query: str) -> NDArray[np.float32]:
        """One BM25 score per tool, in the order the index was built (0 for no overlap)."""
        tokens = tokenize(query)
        if not tokens:
            return np.zeros(len(self.names), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best tools with a score above zero, best first."""
        scores = self.scores(query)
        order = np.argsort(-scores, kind="stable")[:k]
        return [(self.names[i], float(scores[i])) for i in order if scores[i] > 0]
